// A browser's close() leaves nothing behind in this process: no timer of its
// own still running once it has resolved (a 5 s bound left running held every
// `salsify webrtc` up for 5 s after its call, and each test process after it).
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { launchBrowser } from '../../src/webrtc/browser.ts';
import { CHROMIUM_PATH } from '../../src/webrtc/prerequisites.ts';
import { requires } from '../helpers/requires.ts';

const test = requires(['chromium']);
const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

test('after close() resolves, the browser has ended, its profile is gone and none of its timers runs', async () => {
  const before = timers();
  const browser = await launchBrowser({ kind: 'chromium', executable: process.env.SALSIFY_CHROMIUM || CHROMIUM_PATH, cameraFile: '', role: 'close-test' });
  await browser.close();
  assert.not.ok(existsSync(browser.profileDir), 'the profile was removed');
  assert.ok(browser.pid !== undefined && !existsSync(`/proc/${browser.pid}`), `Chromium ${browser.pid} still runs`);
  assert.is(timers(), before, `timers before launch ${before}, after close ${timers()}`);
});

test.run();
