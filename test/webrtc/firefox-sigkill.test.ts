// Firefox does not end when puppeteer's WebSocket closes (Chromium ends
// with its pipe), so a bench killed with SIGKILL used to leave both Firefox
// of its call running, the sender still drawing and encoding its camera.
// launchBrowser starts Firefox through setpriv with a parent-death signal:
// here a Node process starts one Firefox, is killed with SIGKILL, and
// Firefox (and every process of its profile) must be gone within 20 s.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as assert from 'uvu/assert';
import { firefoxCommand } from '../../src/webrtc/browser.ts';
import { FIREFOX_PATH } from '../../src/webrtc/prerequisites.ts';
import { processesMentioning } from '../helpers/processes.ts';
import { requires } from '../helpers/requires.ts';

const test = requires(['firefox']);
/** Resolves once `condition()` holds, checked every 200 ms (each check reads /proc); rejects after `timeoutMs`. */
async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const browserModule = fileURLToPath(new URL('../../dist/webrtc/browser.js', import.meta.url));

test('setpriv --pdeathsig KILL before Firefox; Firefox itself where setpriv is missing', () => {
  const withSetpriv = firefoxCommand('/usr/lib/firefox-esr/firefox-esr', '/tmp/p');
  assert.is(withSetpriv.executablePath, '/usr/bin/setpriv');
  assert.equal(withSetpriv.args.slice(0, 3), ['--pdeathsig', 'KILL', '/usr/lib/firefox-esr/firefox-esr']);
  assert.ok(withSetpriv.args.includes('--profile'));
  const without = firefoxCommand('/usr/lib/firefox-esr/firefox-esr', '/tmp/p', '/nonexistent/setpriv');
  assert.is(without.executablePath, '/usr/lib/firefox-esr/firefox-esr');
  assert.is(without.args[0], '--headless');
});

test('Firefox ends when the process that started it is killed with SIGKILL', async () => {
  const script = `const { launchBrowser } = await import(${JSON.stringify(browserModule)});
const b = await launchBrowser({ kind: 'firefox', executable: ${JSON.stringify(process.env.SALSIFY_FIREFOX || FIREFOX_PATH)}, cameraFile: '', role: 'sigkill-test' });
process.stdout.write(JSON.stringify({ pid: b.pid, profileDir: b.profileDir }) + '\\n');
setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  let started: { pid: number; profileDir: string } | undefined;
  try {
    await until(() => stdout.includes('\n') || child.exitCode !== null, 120_000, 'Firefox to start');
    assert.ok(stdout.includes('\n'), `the launcher ended: ${stderr}`);
    started = JSON.parse(stdout.split('\n')[0]!) as { pid: number; profileDir: string };
    assert.equal(processesMentioning(started.profileDir).includes(started.pid), true, 'Firefox runs with its profile');
    child.kill('SIGKILL');
    const profile = started.profileDir;
    await until(() => processesMentioning(profile).length === 0, 20_000, 'Firefox to end with its parent');
  } finally {
    child.kill('SIGKILL');
    if (started !== undefined) {
      for (const pid of processesMentioning(started.profileDir)) process.kill(pid, 'SIGKILL');
      rmSync(started.profileDir, { recursive: true, force: true });
    }
  }
});

test.run();
