import type pg from 'pg';
import type { Micros } from '../../domain/time.js';
import { StoreUnavailableError } from '../../domain/errors.js';
import type { RecordsByKind, SyncKind } from '../../domain/sync.js';
import { LIST_BATCH_SIZE } from '../limits.js';
import type { ListQuery, ListSnapshot, RestoreGap, StoreIdentity } from '../store.js';
import { NoSuchAccountError, translateError } from './errors.js';
import { Lease } from './lease.js';
import type { ServerTimeouts } from './pool.js';
import type { KindTable } from './tables.js';
import { numberFromBigint, type BigintText } from './values.js';

/** The account's head, and the store's life it belongs to (store_identity: one row). */
const READ_ACCOUNT_HEAD = `SELECT a.rev, a.purged_rev, a.purged_updated, a.restore_gap_after, a.restore_gap_before,
  s.epoch, s.legacy_positions
FROM accounts a CROSS JOIN store_identity s WHERE a.id = $1`;

interface IdentityRow {
  readonly epoch: string;
  readonly legacy_positions: boolean;
}

interface AccountHeadRow extends IdentityRow {
  readonly rev: BigintText;
  readonly purged_rev: BigintText;
  readonly purged_updated: BigintText;
  readonly restore_gap_after: BigintText;
  readonly restore_gap_before: BigintText;
}

function identityOf(row: IdentityRow): StoreIdentity {
  return { epoch: row.epoch, legacyPositions: row.legacy_positions };
}

/** The store's life as it is now. */
export async function readIdentity(pool: pg.Pool): Promise<StoreIdentity> {
  const result = await pool.query<IdentityRow>('SELECT epoch, legacy_positions FROM store_identity');
  const row = result.rows[0];
  if (row === undefined) throw new Error('the database has no store identity: it was not migrated');
  return identityOf(row);
}

/**
 * A list answer read inside one REPEATABLE READ transaction: the account's head and every batch
 * come from the same snapshot, so the answer is consistent however long the caller takes to
 * stream it. Batches are keyset pages (`rev > <last rev seen> ORDER BY rev LIMIT n`) on the
 * `(account_id, rev)` index, so memory stays at one batch whatever the account's size.
 */
export class PostgresListSnapshot<K extends SyncKind> implements ListSnapshot<RecordsByKind[K]> {
  private lastRev: number;
  private remaining: number;
  private done = false;
  private closed = false;

  private constructor(
    private readonly lease: Lease,
    private readonly table: KindTable<K>,
    private readonly accountId: number,
    private readonly query: ListQuery,
    readonly headRev: number,
    readonly purgedRev: number,
    readonly purgedUpdated: Micros,
    readonly identity: StoreIdentity,
    readonly restoreGap: RestoreGap,
  ) {
    this.lastRev = query.afterRev ?? 0;
    this.remaining = query.limit ?? Number.POSITIVE_INFINITY;
  }

  static async open<K extends SyncKind>(
    pool: pg.Pool,
    table: KindTable<K>,
    accountId: number,
    query: ListQuery,
    timeouts: ServerTimeouts,
  ): Promise<PostgresListSnapshot<K>> {
    const lease = await Lease.begin(pool, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', timeouts);
    try {
      // The first statement fixes the transaction's snapshot: the head read here and the rows
      // read later agree, since a write updates both in one transaction.
      const head = await lease.client.query<AccountHeadRow>(READ_ACCOUNT_HEAD, [accountId]);
      const row = head.rows[0];
      if (row === undefined) throw new NoSuchAccountError(accountId);
      return new PostgresListSnapshot(
        lease,
        table,
        accountId,
        query,
        numberFromBigint(row.rev),
        numberFromBigint(row.purged_rev),
        numberFromBigint(row.purged_updated),
        identityOf(row),
        { after: numberFromBigint(row.restore_gap_after), before: numberFromBigint(row.restore_gap_before) },
      );
    } catch (error) {
      await lease.rollback(error);
      lease.release();
      throw translateError(error);
    }
  }

  async nextBatch(): Promise<readonly RecordsByKind[K][] | null> {
    // Ending early must not look like the end of the answer: the caller would answer a cut list.
    if (this.closed) throw new StoreUnavailableError(new Error('the list snapshot was closed'));
    if (this.done || this.remaining <= 0) return null;
    const size = Math.min(LIST_BATCH_SIZE, this.remaining);
    let batch: RecordsByKind[K][];
    try {
      batch = await this.table.select(this.lease.client, ...this.batchCondition(size));
    } catch (error) {
      this.lease.noteError(error);
      throw translateError(error);
    }
    // A short batch means the table has nothing further; no need for an empty round trip.
    if (batch.length < size) this.done = true;
    const last = batch.at(-1);
    if (last === undefined) return null;
    this.lastRev = last.rev;
    this.remaining -= batch.length;
    return batch;
  }

  private batchCondition(size: number): [string, unknown[]] {
    const params: unknown[] = [this.accountId, this.lastRev];
    let condition = 'account_id = $1 AND rev > $2';
    if (this.query.updatedAfter !== undefined) {
      params.push(this.query.updatedAfter);
      condition += ` AND updated > $${params.length}`;
    }
    if (!this.query.includeDeleted) condition += ' AND deleted IS NULL';
    params.push(size);
    condition += ` ORDER BY rev LIMIT $${params.length}`;
    return [condition, params];
  }

  /**
   * Ends the read-only transaction and returns the connection; safe to call more than once. It
   * never throws: nothing was written, so a failed COMMIT loses nothing, and callers close in
   * `finally` blocks where an error would hide the one that got them there.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.lease.client.query('COMMIT');
    } catch {
      this.lease.discard();
    } finally {
      this.lease.release();
    }
  }
}
