/**
 * Makes this process's writes for one account wait their turn in memory rather than on the
 * database's row lock. Otherwise every queued writer of a busy account would hold a pooled
 * connection while it waits, and enough of them would starve the writes and reads of every
 * other account. Writers in other processes still queue on the row lock, which is what orders
 * change numbers; this only keeps the waiting cheap.
 */
export class AccountWriteQueue {
  private readonly tails = new Map<number, Promise<void>>();

  run<T>(accountId: number, job: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(accountId) ?? Promise.resolve();
    const result = previous.then(job);
    // The next writer waits for this one to settle, whether it succeeded or not.
    const tail = result.then(settled, settled);
    this.tails.set(accountId, tail);
    // Forget accounts with nobody waiting, so the map does not grow with every account ever seen.
    void tail.then(() => {
      if (this.tails.get(accountId) === tail) this.tails.delete(accountId);
    });
    return result;
  }
}

function settled(): void {}
