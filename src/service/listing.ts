import { DomainError } from '../domain/errors.js';
import type { Micros } from '../domain/time.js';
import type { AccountHead, RecordsByKind, ReturnedPosition, SyncKind, SyncPosition } from '../domain/sync.js';
import type { ListSnapshot, Store } from '../store/store.js';

/** The parameters of a list call, already parsed. `after` is what a cursor stands for. */
export interface ListRequest {
  readonly after?: ReturnedPosition;
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
  get cursor(): SyncPosition {
    return {
      epoch: this.snapshot.identity.epoch,
      rev: this.cut ? this.lastRev : this.snapshot.headRev,
      purgedRev: this.snapshot.purgedRev,
    };
  }

  /** Where the account stood at the snapshot: the same head always gives the same answer. */
  get head(): AccountHead {
    return { rev: this.snapshot.headRev, purgedRev: this.snapshot.purgedRev };
  }

  close(): Promise<void> {
    return this.snapshot.close();
  }
}

/** Whether the changes after a cursor's position can be read from this snapshot. */
function continuable(after: ReturnedPosition, snapshot: ListSnapshot<unknown>): boolean {
  // The position before every change names none: whichever store gave it, all that follows it is
  // every change there is, so it is the same in every life of every store.
  const beforeAll = after.rev === 0;
  const sameLife =
    beforeAll || (after.epoch === null ? snapshot.identity.legacyPositions : after.epoch === snapshot.identity.epoch);
  // Past the head: no position this life handed out (a forged one, or a store's copy gone back).
  if (!sameLife || after.rev > snapshot.headRev) return false;
  // Tombstones after the position were purged since it was handed out: their deletions are lost
  // to it. A position handed out after the purge (page 2 of a listing made since) lost nothing.
  return !(after.rev < snapshot.purgedRev && after.purgedRev < snapshot.purgedRev);
}

/**
 * Whether the changes after a date can be read from this snapshot. A date carries no epoch: one
 * the last restore lost (after the backup's newest change, before the restore) is refused; an
 * earlier one is what a client takes from the restored records themselves, and is answered.
 */
function continuableSince(updatedAfter: Micros, snapshot: ListSnapshot<unknown>): boolean {
  const { after, before } = snapshot.restoreGap;
  if (updatedAfter > after && updatedAfter < before) return false;
  // Marks of 0 mean nothing was purged: then no date is too old, not even one before 1970.
  return !(snapshot.purgedRev > 0 && updatedAfter < snapshot.purgedUpdated);
}

export class ListingService {
  constructor(private readonly store: Store) {}

  /**
   * Opens the snapshot. A position the store cannot continue from is refused, and the client
   * lists anew: one older than what was purged, one of another life of the store (from before a
   * restore, or from another store), or a date a restore lost.
   */
  async open<K extends SyncKind>(accountId: number, kind: K, request: ListRequest): Promise<Listing<RecordsByKind[K]>> {
    const { after, updatedAfter } = request;
    const incremental = after !== undefined || updatedAfter !== undefined;
    // One extra record tells whether `limit` cut the answer.
    const storeLimit = request.limit === undefined ? undefined : request.limit + 1;
    const snapshot = await this.store.list(accountId, kind, {
      includeDeleted: incremental,
      ...(after === undefined ? {} : { afterRev: after.rev }),
      ...(updatedAfter === undefined ? {} : { updatedAfter }),
      ...(storeLimit === undefined ? {} : { limit: storeLimit }),
    });
    const expired =
      (after !== undefined && !continuable(after, snapshot)) ||
      (updatedAfter !== undefined && !continuableSince(updatedAfter, snapshot));
    if (expired) {
      await snapshot.close();
      throw new DomainError({ kind: 'cursor_expired' });
    }
    return new Listing(snapshot, request.limit);
  }

  /** Where the account stands now, as a position a client can continue from. */
  async position(accountId: number): Promise<SyncPosition> {
    const [head, identity] = await Promise.all([this.head(accountId), this.store.identity()]);
    return { epoch: identity.epoch, rev: head.rev, purgedRev: head.purgedRev };
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
