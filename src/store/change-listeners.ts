import type { DraftsByKind, RecordsByKind, SyncKind } from '../domain/sync.js';
import type { ChangeFeed, ChangeListener, ChangeNote } from './change-feed.js';
import type { WriteTx } from './store.js';

/** The listeners of one process, told in turn; a listener that throws does not stop the others. */
export class ChangeListeners implements ChangeFeed {
  /** The engine's store says whether it tells `outbox` notes (ChangeFeed). */
  constructor(readonly tellsOutbox: boolean) {}

  readonly #listeners = new Set<ChangeListener>();

  subscribe(listener: ChangeListener): () => void {
    // Each subscription its own entry, so that the same function subscribed twice is told twice.
    const entry: ChangeListener = (note) => listener(note);
    this.#listeners.add(entry);
    return () => {
      this.#listeners.delete(entry);
    };
  }

  get size(): number {
    return this.#listeners.size;
  }

  tell(note: ChangeNote): void {
    for (const listener of this.#listeners) {
      try {
        listener(note);
      } catch {
        // A listener's failure is its own: the feed goes on telling the others.
      }
    }
  }
}

/**
 * `work`'s transaction as given, noting the kinds it puts, so that the store tells its commit to
 * the feed. Kinds of a try that did not commit may be noted too (PostgreSQL may run `work` again):
 * a note too many makes a listener look once for nothing, never miss a change.
 */
export function notingKinds(tx: WriteTx, kinds: Set<SyncKind>): WriteTx {
  return {
    get: (kind, id) => tx.get(kind, id),
    put: <K extends SyncKind>(kind: K, draft: DraftsByKind[K]): Promise<RecordsByKind[K]> => {
      kinds.add(kind);
      return tx.put(kind, draft);
    },
    findLive: (kind, name) => tx.findLive(kind, name),
    withLabel: (kind, id, pending) => tx.withLabel(kind, id, pending),
    childrenOf: (parentIds) => tx.childrenOf(parentIds),
    usage: () => tx.usage(),
    findKept: (key) => tx.findKept(key),
    keep: (key, requestHash, outcome) => tx.keep(key, requestHash, outcome),
  };
}

/**
 * Runs a store's `write` with the kinds its work puts noted, and tells the feed once it committed;
 * `wroteOutbox`, when given, says after a commit that put records whether the account has an
 * active hook (its triggers then may have written to the outbox), to tell `outbox` too.
 */
export async function writeTold<T>(
  listeners: ChangeListeners,
  accountId: number,
  work: (tx: WriteTx) => Promise<T>,
  write: (work: (tx: WriteTx) => Promise<T>) => Promise<T>,
  wroteOutbox?: (accountId: number) => boolean,
): Promise<T> {
  const kinds = new Set<SyncKind>();
  const result = await write((tx) => work(notingKinds(tx, kinds)));
  if (kinds.size > 0) {
    listeners.tell({ type: 'changed', accountId, kinds: [...kinds] });
    if (wroteOutbox?.(accountId) === true) listeners.tell({ type: 'outbox', accountId });
  }
  return result;
}
