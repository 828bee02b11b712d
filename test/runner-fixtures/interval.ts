// Records when a fixture's test runs (for test/build/test-runner.test.ts), and waits a little so that
// files running at once overlap.
import { appendFileSync } from 'node:fs';

export async function recorded(name: string, waitMs = 300): Promise<void> {
  const log = process.env.RUNNER_FIXTURE_LOG;
  if (log === undefined) throw new Error('RUNNER_FIXTURE_LOG is not set');
  appendFileSync(log, `${name} start ${Date.now()}\n`);
  await new Promise((resolve) => setTimeout(resolve, waitMs));
  appendFileSync(log, `${name} end ${Date.now()}\n`);
}
