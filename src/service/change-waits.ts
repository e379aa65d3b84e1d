import type { SyncKind } from '../domain/sync.js';
import type { ChangeFeed, ChangeNote } from '../store/change-feed.js';

/**
 * Why a wait ended: a change of its kind to look at, a change of another kind of its account (it
 * is answered as it stands: API.md 4.6, a change answers every waiting request of the account),
 * its time ran out, or the process is stopping.
 */
export type WaitEnd = 'changed' | 'elsewhere' | 'timeout' | 'shutdown';

/**
 * One request's watch on one account and kind, made before it reads (so a change committed
 * between its read and its wait is not missed) and ended exactly once.
 */
export class Watch {
  #ended: WaitEnd | undefined;
  #resolve: ((end: WaitEnd) => void) | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    readonly accountId: number,
    readonly kind: SyncKind,
    private readonly onEnd: (watch: Watch) => void,
  ) {}

  /** Resolves when a change of the account arrives, after `ms`, or on shutdown; at once if that happened already. */
  until(ms: number): Promise<WaitEnd> {
    if (this.#ended !== undefined) return Promise.resolve(this.#ended);
    return new Promise((resolve) => {
      this.#resolve = resolve;
      this.#timer = setTimeout(() => this.end('timeout'), ms);
    });
  }

  /** Ends the watch (the first reason counts); a request that stops waiting calls it with any reason. */
  end(reason: WaitEnd): void {
    if (this.#ended !== undefined) return;
    this.#ended = reason;
    clearTimeout(this.#timer);
    this.onEnd(this);
    this.#resolve?.(reason);
  }
}

/**
 * The requests waiting for changes (API.md 4.6), per account, woken by the store's change feed:
 * none of them holds a store connection or polls. A few hundred bytes each (the watch, its timer
 * and a set entry), so ten thousand cost a few MB.
 */
export class ChangeWaits {
  readonly #byAccount = new Map<number, Set<Watch>>();
  #count = 0;
  #stopped = false;
  #unsubscribe: (() => void) | undefined;
  readonly #forget = (watch: Watch): void => {
    const watches = this.#byAccount.get(watch.accountId);
    if (watches?.delete(watch) !== true) return;
    this.#count -= 1;
    if (watches.size === 0) this.#byAccount.delete(watch.accountId);
  };

  constructor(private readonly feed: ChangeFeed) {}

  /** Requests waiting now. */
  get waiting(): number {
    return this.#count;
  }

  /** Starts watching; after shutdown the watch has already ended. */
  watch(accountId: number, kind: SyncKind): Watch {
    const watch = new Watch(accountId, kind, this.#forget);
    if (this.#stopped) {
      watch.end('shutdown');
      return watch;
    }
    // The feed is heard from the first wait on: a process that never waits opens no listener.
    this.#unsubscribe ??= this.feed.subscribe((note) => this.#heard(note));
    let watches = this.#byAccount.get(accountId);
    if (watches === undefined) {
      watches = new Set();
      this.#byAccount.set(accountId, watches);
    }
    watches.add(watch);
    this.#count += 1;
    return watch;
  }

  /** Ends every wait at once and every later one as it starts: the process is stopping. */
  shutdown(): void {
    this.#stopped = true;
    this.#unsubscribe?.();
    this.#endAll('shutdown');
  }

  #heard(note: ChangeNote): void {
    if (note.type === 'resync') {
      // Commits may have been missed: every waiting request reads again.
      this.#endAll('changed');
      return;
    }
    if (note.type === 'outbox') return;
    const watches = this.#byAccount.get(note.accountId);
    if (watches === undefined) return;
    for (const watch of [...watches]) watch.end(note.kinds.includes(watch.kind) ? 'changed' : 'elsewhere');
  }

  #endAll(reason: WaitEnd): void {
    for (const watches of [...this.#byAccount.values()]) {
      for (const watch of [...watches]) watch.end(reason);
    }
  }
}
