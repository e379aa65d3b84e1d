import type { Micros } from '../../domain/time.js';
import { StoreUnavailableError } from '../../domain/errors.js';
import type { RecordsByKind, SyncKind } from '../../domain/sync.js';
import { LIST_BATCH_SIZE } from '../limits.js';
import type { ListQuery, ListSnapshot, RestoreGap, StoreIdentity } from '../store.js';
import { identityOf, prepareListHead } from './account-reads.js';
import type { AccountListHeadRow } from './account-rows.js';
import { openReadConnection, type SqliteDatabase } from './connection.js';
import { NO_LIMIT, prepareLister, prepareListers, type RecordLister } from './kind-statements.js';

/**
 * Opens list snapshots. An answer that fits in one batch is read at once on the shared read
 * connection; a larger one gets a read-only connection of its own whose read transaction holds
 * the snapshot while the caller takes it batch by batch.
 */
export class Snapshots {
  readonly #begin;
  readonly #commit;
  readonly #listHead;
  readonly #listers: { readonly [K in SyncKind]: RecordLister<RecordsByKind[K]> };
  /** Streaming snapshots still holding a connection, closed when the store closes. */
  readonly #streaming = new Set<StreamingSnapshot<unknown>>();

  constructor(
    private readonly file: string,
    shared: SqliteDatabase,
  ) {
    this.#begin = shared.prepare('BEGIN');
    this.#commit = shared.prepare('COMMIT');
    this.#listHead = prepareListHead(shared);
    this.#listers = prepareListers(shared);
  }

  open<K extends SyncKind>(accountId: number, kind: K, query: ListQuery): ListSnapshot<RecordsByKind[K]> {
    const limit = query.limit ?? NO_LIMIT;
    if (limit !== NO_LIMIT && !(Number.isSafeInteger(limit) && limit >= 0)) {
      throw new RangeError(`a list limit must be a whole number >= 0, not ${limit}`);
    }
    // Most answers are small: try to read the whole of it at once, asking for one record more than
    // a batch to learn whether it fits. When it does not, that read is dropped and the answer is
    // read afresh on a connection of its own (a snapshot of its own, consistent in itself).
    const fitsOneBatch = limit !== NO_LIMIT && limit <= LIST_BATCH_SIZE;
    const { head, records } = this.#readAtOnce(accountId, kind, query, fitsOneBatch ? limit : LIST_BATCH_SIZE + 1);
    if (records.length <= LIST_BATCH_SIZE) return new BufferedSnapshot(head, records);
    return this.#openStreaming(accountId, kind, query, limit);
  }

  /** Ends every streaming snapshot still open; their next `nextBatch` fails. */
  closeAll(): void {
    for (const snapshot of this.#streaming) snapshot.abort();
  }

  #readAtOnce<K extends SyncKind>(
    accountId: number,
    kind: K,
    query: ListQuery,
    limit: number,
  ): { head: AccountListHeadRow; records: RecordsByKind[K][] } {
    const lister = this.#listers[kind];
    // Both reads in one read transaction: the head and the records come from the same commit.
    // Nothing else can run on this connection in between, since the calls are synchronous.
    this.#begin.run();
    try {
      const head = requireHead(this.#listHead(accountId), accountId);
      return { head, records: lister.all(accountId, query, limit) };
    } finally {
      this.#commit.run();
    }
  }

  #openStreaming<K extends SyncKind>(
    accountId: number,
    kind: K,
    query: ListQuery,
    limit: number,
  ): ListSnapshot<RecordsByKind[K]> {
    const db = openReadConnection(this.file);
    try {
      // A deferred read transaction takes its snapshot at its first read, the head below; every
      // later step of the record statement reads that same snapshot, whatever commits meanwhile.
      db.exec('BEGIN');
      const head = requireHead(prepareListHead(db)(accountId), accountId);
      const records = prepareLister(db, kind).iterate(accountId, query, limit);
      const snapshot = new StreamingSnapshot(head, db, records, () => this.#streaming.delete(snapshot));
      this.#streaming.add(snapshot);
      return snapshot;
    } catch (error) {
      db.close();
      throw error;
    }
  }
}

function requireHead(head: AccountListHeadRow | undefined, accountId: number): AccountListHeadRow {
  if (head === undefined) throw new Error(`no account with id ${accountId}`);
  return head;
}

/** A whole answer already read: one batch, then the end. */
class BufferedSnapshot<T> implements ListSnapshot<T> {
  readonly headRev: number;
  readonly purgedRev: number;
  readonly purgedUpdated: Micros;
  readonly identity: StoreIdentity;
  readonly restoreGap: RestoreGap;
  #records: readonly T[] | null;

  constructor(head: AccountListHeadRow, records: readonly T[]) {
    this.headRev = head.rev;
    this.purgedRev = head.purged_rev;
    this.purgedUpdated = head.purged_updated;
    this.identity = identityOf(head);
    this.restoreGap = { after: head.restore_gap_after, before: head.restore_gap_before };
    this.#records = records.length > 0 ? records : null;
  }

  #closed = false;

  async nextBatch(): Promise<readonly T[] | null> {
    // The same as a streaming snapshot: a read after close() is not the end of the answer.
    if (this.#closed) throw new StoreUnavailableError(new Error('the list snapshot was closed'));
    const records = this.#records;
    this.#records = null;
    return records;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#records = null;
  }
}

/**
 * An answer read batch by batch from a connection of its own, holding at most one batch in
 * memory. The connection is closed as soon as the answer is complete, on `close()`, or when the
 * store closes.
 */
class StreamingSnapshot<T> implements ListSnapshot<T> {
  readonly headRev: number;
  readonly purgedRev: number;
  readonly purgedUpdated: Micros;
  readonly identity: StoreIdentity;
  readonly restoreGap: RestoreGap;
  /** `done`: every record was taken; `closed`: ended before, so a further read is an error. */
  #state: 'reading' | 'done' | 'closed' = 'reading';

  constructor(
    head: AccountListHeadRow,
    private readonly db: SqliteDatabase,
    private readonly records: Generator<T, void, undefined>,
    private readonly onRelease: () => void,
  ) {
    this.headRev = head.rev;
    this.purgedRev = head.purged_rev;
    this.purgedUpdated = head.purged_updated;
    this.identity = identityOf(head);
    this.restoreGap = { after: head.restore_gap_after, before: head.restore_gap_before };
  }

  async nextBatch(): Promise<readonly T[] | null> {
    if (this.#state === 'done') return null;
    // Ending early must not look like the end of the answer: the caller would answer a cut list.
    if (this.#state === 'closed') throw new StoreUnavailableError(new Error('the list snapshot was closed'));
    const batch: T[] = [];
    try {
      while (batch.length < LIST_BATCH_SIZE) {
        const next = this.records.next();
        if (next.done === true) {
          this.#release('done');
          break;
        }
        batch.push(next.value);
      }
    } catch (error) {
      this.#release('closed');
      throw error;
    }
    return batch.length > 0 ? batch : null;
  }

  async close(): Promise<void> {
    this.#release('closed');
  }

  /** The store is closing under this snapshot. */
  abort(): void {
    this.#release('closed');
  }

  #release(state: 'done' | 'closed'): void {
    if (this.#state !== 'reading') return;
    this.#state = state;
    try {
      // Finishes the record statement first: a connection with a statement mid-step cannot close.
      this.records.return();
    } finally {
      this.db.close();
      this.onRelease();
    }
  }
}
