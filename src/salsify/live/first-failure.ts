// The first failure of a live run, from whichever part reports it (a timer
// thread, the codec, a file being written), as a promise to race against the
// run's other ends. It resolves (never rejects) with the error, so that no
// rejection goes unhandled when nothing fails.
export class FirstFailure {
  #error: Error | undefined;
  #resolve!: (error: Error) => void;
  readonly promise = new Promise<Error>((resolve) => {
    this.#resolve = resolve;
  });

  get error(): Error | undefined {
    return this.#error;
  }

  /** Reports a failure; only the first counts. Undefined is ignored, so that `report(x.failure)` may be called at any time. */
  readonly report = (error: unknown): void => {
    if (error === undefined || this.#error) return;
    this.#error = error instanceof Error ? error : new Error(String(error));
    this.#resolve(this.#error);
  };

  /** Rejects with the failure, once there is one: for Promise.race. */
  async thrown(): Promise<never> {
    throw await this.promise;
  }
}
