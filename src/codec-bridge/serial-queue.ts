// Runs async jobs one at a time, in the order they were queued.
export class SerialQueue {
  #tail: Promise<unknown> = Promise.resolve();

  run<T>(job: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(job, job);
    this.#tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  /** Resolves when every queued job has finished. */
  drain(): Promise<void> {
    return this.#tail.then(() => undefined);
  }
}
