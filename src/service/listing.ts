import { DomainError } from '../domain/errors.js';
import type { Micros } from '../domain/time.js';
import type { AccountHead, RecordsByKind, SyncKind } from '../domain/sync.js';
import type { ListSnapshot, Store } from '../store/store.js';

/** The parameters of a list call, already parsed. `afterRev` is what a cursor stands for. */
export interface ListRequest {
  readonly afterRev?: number;
  readonly updatedAfter?: Micros;
  readonly limit?: number;
}

/**
 * One list answer being read from one snapshot. Read `batches()` to the end, then `cursorRev` and
 * `hasMore` describe where a next call continues; `close()` always.
 */
export class Listing<T extends { readonly rev: number }> {
  private yielded = 0;
  private lastRev = 0;
  private cut = false;

  constructor(
    private readonly snapshot: ListSnapshot<T>,
    private readonly limit: number | undefined,
  ) {}

  /** The answer's records in ascending `rev`, at most `limit` of them. */
  async *batches(): AsyncGenerator<readonly T[]> {
    for (;;) {
      const batch = await this.snapshot.nextBatch();
      if (batch === null) return;
      const room = this.limit === undefined ? batch.length : this.limit - this.yielded;
      if (batch.length > room) {
        this.cut = true;
        if (room > 0) yield* this.take(batch.slice(0, room));
        return;
      }
      if (batch.length > 0) yield* this.take(batch);
    }
  }

  private *take(batch: readonly T[]): Generator<readonly T[]> {
    this.yielded += batch.length;
    const last = batch[batch.length - 1];
    if (last !== undefined) this.lastRev = last.rev;
    yield batch;
  }

  get hasMore(): boolean {
    return this.cut;
  }

  /** Where the next call continues: after the last record when cut, else "everything up to now". */
  get cursorRev(): number {
    return this.cut ? this.lastRev : this.snapshot.headRev;
  }

  /** Where the account stood at the snapshot: the same head always gives the same answer. */
  get head(): AccountHead {
    return { rev: this.snapshot.headRev, purgedRev: this.snapshot.purgedRev };
  }

  close(): Promise<void> {
    return this.snapshot.close();
  }
}

export class ListingService {
  constructor(private readonly store: Store) {}

  /** Opens the snapshot; a position older than what was purged is refused (the client lists anew). */
  async open<K extends SyncKind>(accountId: number, kind: K, request: ListRequest): Promise<Listing<RecordsByKind[K]>> {
    const incremental = request.afterRev !== undefined || request.updatedAfter !== undefined;
    // One extra record tells whether `limit` cut the answer.
    const storeLimit = request.limit === undefined ? undefined : request.limit + 1;
    const snapshot = await this.store.list(accountId, kind, {
      includeDeleted: incremental,
      ...(request.afterRev === undefined ? {} : { afterRev: request.afterRev }),
      ...(request.updatedAfter === undefined ? {} : { updatedAfter: request.updatedAfter }),
      ...(storeLimit === undefined ? {} : { limit: storeLimit }),
    });
    // Marks of 0 mean nothing was purged: then no position is too old, not even one before 1970.
    const purged = snapshot.purgedRev > 0;
    const expired =
      purged &&
      ((request.afterRev !== undefined && request.afterRev < snapshot.purgedRev) ||
        (request.updatedAfter !== undefined && request.updatedAfter < snapshot.purgedUpdated));
    if (expired) {
      await snapshot.close();
      throw new DomainError({ kind: 'cursor_expired' });
    }
    return new Listing(snapshot, request.limit);
  }

  /** Where the account stands now; an unknown account has no head. */
  async head(accountId: number): Promise<AccountHead> {
    const head = await this.store.head(accountId);
    if (head === undefined) throw new Error(`account ${accountId} vanished`);
    return head;
  }

  async get<K extends SyncKind>(accountId: number, kind: K, id: string): Promise<RecordsByKind[K]> {
    const record = await this.store.get(accountId, kind, id);
    if (record === undefined) throw new DomainError({ kind: 'not_found', record: kind, id });
    return record;
  }
}
