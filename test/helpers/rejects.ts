// Asserts that a promise rejects with an Error whose message matches `pattern`.
import * as assert from 'uvu/assert';

export async function rejects(promise: Promise<unknown>, pattern: RegExp): Promise<void> {
  try {
    await promise;
  } catch (error) {
    assert.instance(error, Error);
    assert.match((error as Error).message, pattern, `got: ${(error as Error).message}`);
    return;
  }
  assert.unreachable(`expected an error matching ${pattern}`);
}
