// What the bench started, ended in the reverse order, whatever happens: each
// step runs even when an earlier one failed, and the first failure is kept.
export class Cleanup {
  readonly #steps: { name: string; run: () => Promise<unknown> | unknown }[] = [];
  readonly failures: string[] = [];

  add(name: string, run: () => Promise<unknown> | unknown): void {
    this.#steps.push({ name, run });
  }

  async run(): Promise<void> {
    while (this.#steps.length > 0) {
      const step = this.#steps.pop()!;
      try {
        await step.run();
      } catch (error) {
        this.failures.push(`${step.name}: ${(error as Error).message}`);
      }
    }
  }
}

/** Resolves after `ms`, or rejects at once when `signal` aborts. */
export function abortableDelay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
