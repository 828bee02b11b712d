// Needs firefox-esr, which the runner's test hides ($SALSIFY_FIREFOX): skipped and counted; its after
// hook still cleans up.
import { appendFileSync } from 'node:fs';
import { requires } from '../helpers/requires.ts';

const test = requires(['firefox']);
test.after(() => appendFileSync(process.env.RUNNER_FIXTURE_LOG!, 'f-skips cleanup 0\n'));
test('needs firefox-esr', () => {
  throw new Error('ran without firefox-esr');
});
test.run();
