/**
 * Runs jobs one at a time in the order they were queued, each to its end (also across its
 * awaits) before the next starts. better-sqlite3 runs every statement on the calling thread, so
 * an async write transaction would otherwise let another request's statements run on the same
 * connection between its BEGIN and COMMIT, inside its transaction.
 */
export class SerialQueue {
  #tail: Promise<void> = Promise.resolve();

  run<T>(job: () => T | Promise<T>): Promise<T> {
    const result = this.#tail.then(job);
    // The next job waits for this one to settle, whether it succeeded or not.
    this.#tail = result.then(settled, settled);
    return result;
  }

  /** Resolves once every job queued so far has settled. */
  idle(): Promise<void> {
    return this.#tail;
  }
}

function settled(): void {}
