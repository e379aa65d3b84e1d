import type { Readable } from 'node:stream';

/** How many list answers may stream at once, and how long one may take. */
export interface StreamLimits {
  /**
   * Streams open at once in this process. Each holds a snapshot: on PostgreSQL a pooled
   * connection in a read transaction, on SQLite a read transaction that keeps the WAL from being
   * checkpointed past it. Kept well below the PostgreSQL pool (10), so that streams never take
   * the connections everyone else needs.
   */
  readonly maxStreams: number;
  /** Streams of one account at once: one account's readers do not take every slot. */
  readonly maxStreamsPerAccount: number;
  /** A stream whose client takes nothing for this long is ended (the connection closed). */
  readonly idleMs: number;
  /** A stream is ended after this long, however it goes: a snapshot is not held for ever. */
  readonly lifetimeMs: number;
}

export const DEFAULT_STREAM_LIMITS: StreamLimits = {
  maxStreams: 4,
  maxStreamsPerAccount: 2,
  idleMs: 30_000,
  lifetimeMs: 10 * 60_000,
};

/** The error a stream past its deadline is destroyed with: the answer is cut, the socket closed. */
export class StreamDeadlineError extends Error {
  constructor(which: 'idle' | 'lifetime') {
    super(which === 'idle' ? 'the client took nothing of a list answer for too long' : 'a list answer took too long');
    this.name = 'StreamDeadlineError';
  }
}

/**
 * The list answers streaming now, counted per process and per account. A stream is admitted
 * before it starts (past a cap the caller answers E503 and drops its snapshot) and watched until
 * it closes: idle past `idleMs` or older than `lifetimeMs`, it is destroyed, which closes the
 * client's connection and releases the snapshot.
 */
export class ListStreams {
  #open = 0;
  readonly #perAccount = new Map<number, number>();

  constructor(private readonly limits: StreamLimits = DEFAULT_STREAM_LIMITS) {}

  /** Streams open now, for tests and diagnostics. */
  get open(): number {
    return this.#open;
  }

  /** Takes a slot for the account; false when the process or the account has none left. */
  admit(accountId: number): boolean {
    const ofAccount = this.#perAccount.get(accountId) ?? 0;
    if (this.#open >= this.limits.maxStreams || ofAccount >= this.limits.maxStreamsPerAccount) return false;
    this.#open += 1;
    this.#perAccount.set(accountId, ofAccount + 1);
    return true;
  }

  /**
   * Watches an admitted stream until it closes, then gives its slot back. `pulled` is called by
   * the stream's source each time the client takes a piece.
   */
  watch(accountId: number, stream: Readable): { pulled(): void } {
    const began = performance.now();
    let lastPull = began;
    const check = (): void => {
      const now = performance.now();
      if (now - began >= this.limits.lifetimeMs) stream.destroy(new StreamDeadlineError('lifetime'));
      else if (now - lastPull >= this.limits.idleMs) stream.destroy(new StreamDeadlineError('idle'));
    };
    const timer = setInterval(check, Math.max(10, Math.min(1000, this.limits.idleMs / 4)));
    timer.unref();
    stream.once('close', () => {
      clearInterval(timer);
      this.#release(accountId);
    });
    return {
      pulled: () => {
        lastPull = performance.now();
      },
    };
  }

  #release(accountId: number): void {
    this.#open -= 1;
    const left = (this.#perAccount.get(accountId) ?? 1) - 1;
    if (left > 0) this.#perAccount.set(accountId, left);
    else this.#perAccount.delete(accountId);
  }
}
