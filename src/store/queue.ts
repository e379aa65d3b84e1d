/**
 * Runs jobs one at a time in the order they were queued, each to its end (also across its
 * awaits) before the next starts.
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

/**
 * One SerialQueue per account, made when an account has a job and forgotten when it has none
 * waiting, so the map does not grow with every account ever seen. Accounts never wait on each other.
 */
export class AccountQueue {
  readonly #queues = new Map<number, { queue: SerialQueue; waiting: number }>();

  run<T>(accountId: number, job: () => Promise<T>): Promise<T> {
    let entry = this.#queues.get(accountId);
    if (entry === undefined) {
      entry = { queue: new SerialQueue(), waiting: 0 };
      this.#queues.set(accountId, entry);
    }
    const current = entry;
    current.waiting += 1;
    const result = current.queue.run(job);
    void result.then(settled, settled).then(() => {
      current.waiting -= 1;
      if (current.waiting === 0 && this.#queues.get(accountId) === current) this.#queues.delete(accountId);
    });
    return result;
  }
}

function settled(): void {}
