// Waiting in tests for something to happen, with a generous bound instead of
// a fixed sleep: a loaded machine only makes it take longer.

/** Resolves once `condition()` holds, checking every few ms; rejects after `timeoutMs`, naming `what`. */
export async function waitFor(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
