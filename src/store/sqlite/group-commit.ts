/** What a group needs of the connection: a transaction, and savepoints inside it. */
export interface GroupTransaction {
  begin(): void;
  commit(): void;
  /** Called right after `commit`: resolves once that commit is durable. */
  durable(): Promise<void>;
  /** Rolls the whole transaction back, when one is open. */
  rollback(): void;
  savepoint(): void;
  release(): void;
  rollbackToSavepoint(): void;
}

interface Member {
  /** Runs the member's work inside its savepoint; throws when the work fails. */
  readonly execute: () => Promise<void>;
  /** The group committed: answer with what the work returned. */
  readonly committed: () => void;
  readonly failed: (reason: unknown) => void;
}

/** A bound on one group, so that one commit never waits on an unbounded amount of work. */
const MAX_GROUP = 256;

/**
 * The longest a group runs its members back to back before it lets the event loop come round.
 * better-sqlite3 is synchronous, so a group of many large writes (32 array POSTs of 100 tasks:
 * 200 ms, more on a busy machine) would otherwise hold every other request, reads of other
 * accounts too, and the load shedder would see the loop stall and refuse new work. Between two
 * members the transaction stays open; nothing else uses the write connection meanwhile (the
 * flush holds its queue), and the read connection keeps answering from the last commit.
 */
const YIELD_AFTER_MS = 10;

/**
 * Group commit: the write transactions that arrive while the previous group runs share one
 * transaction and so one sync. Each runs in its own savepoint, so a failing one rolls back alone;
 * each is answered only once the shared COMMIT is durable, so nothing is answered before it is.
 * The connection is free for the next group as soon as COMMIT returned: one group's sync overlaps
 * the next group's work. `schedule` must run the flush exclusively on the connection.
 */
export class GroupCommit {
  #waiting: Member[] = [];
  #flushQueued = false;
  #flushing = false;
  /** Committed groups whose members wait for their sync. */
  #syncing = 0;

  constructor(
    private readonly transaction: GroupTransaction,
    private readonly schedule: (flush: () => Promise<void>) => Promise<void>,
  ) {}

  /** Runs `work` inside the next group's transaction; resolves once that group is committed. */
  run<T>(work: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let value: T;
      this.#waiting.push({
        execute: async () => {
          value = await work();
        },
        committed: () => resolve(value),
        failed: reject,
      });
      this.#queueFlush();
    });
  }

  /** Resolves once every write handed to `run` so far is committed or failed. */
  async drained(): Promise<void> {
    while (this.#flushQueued || this.#flushing || this.#syncing > 0 || this.#waiting.length > 0) {
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  #queueFlush(): void {
    if (this.#flushQueued) return;
    this.#flushQueued = true;
    // setImmediate lets every request whose bytes arrived in this turn of the event loop join
    // the group before it starts.
    setImmediate(() => {
      this.schedule(() => this.#flush()).catch((error: unknown) => {
        // The connection refused the flush (the store is closing): nobody waits forever.
        this.#flushQueued = false;
        for (const member of this.#waiting.splice(0)) member.failed(error);
      });
    });
  }

  async #flush(): Promise<void> {
    this.#flushQueued = false;
    this.#flushing = true;
    try {
      await this.#commitGroup();
    } finally {
      this.#flushing = false;
    }
  }

  async #commitGroup(): Promise<void> {
    const group = this.#waiting.splice(0, MAX_GROUP);
    if (this.#waiting.length > 0) this.#queueFlush();
    if (group.length === 0) return;

    try {
      this.transaction.begin();
    } catch (error) {
      for (const member of group) member.failed(error);
      return;
    }
    const done: Member[] = [];
    let ranSince = performance.now();
    for (const member of group) {
      if (performance.now() - ranSince > YIELD_AFTER_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        ranSince = performance.now();
      }
      this.transaction.savepoint();
      try {
        await member.execute();
        this.transaction.release();
        done.push(member);
      } catch (error) {
        // Only this member's writes are undone; it has nothing to wait for.
        this.transaction.rollbackToSavepoint();
        this.transaction.release();
        member.failed(error);
      }
    }
    try {
      this.transaction.commit();
    } catch (error) {
      this.transaction.rollback();
      for (const member of done) member.failed(error);
      return;
    }
    this.#answerWhenDurable(done);
  }

  /** Not awaited by the flush: the next group may run while this one's sync is under way. */
  #answerWhenDurable(members: readonly Member[]): void {
    if (members.length === 0) return;
    this.#syncing += 1;
    void this.transaction
      .durable()
      .then(
        () => {
          for (const member of members) member.committed();
        },
        (error: unknown) => {
          // Committed but perhaps not on disk: the outcome is unknown, as after a crash.
          for (const member of members) member.failed(error);
        },
      )
      .finally(() => {
        this.#syncing -= 1;
      });
  }
}
