import type pg from 'pg';
import type { Micros } from '../../domain/time.js';
import type { WriteTx } from '../store.js';
import { NoSuchAccountError } from './errors.js';
import { Lease } from './lease.js';
import { numberFromBigint, type BigintText } from './values.js';
import { PostgresWriteTx } from './write-tx.js';

/**
 * Locks the account row for the rest of the transaction and reads its change counters. NO KEY
 * UPDATE is enough to make writers of one account queue behind each other, and, unlike FOR
 * UPDATE, it does not block inserts elsewhere whose foreign keys merely check the account exists.
 * Writers of other accounts lock other rows and never wait.
 */
const LOCK_ACCOUNT =
  'SELECT rev, last_updated, stored_records, stored_bytes FROM accounts WHERE id = $1 FOR NO KEY UPDATE';
interface LockedAccountRow {
  readonly rev: BigintText;
  readonly last_updated: BigintText;
  readonly stored_records: BigintText;
  readonly stored_bytes: BigintText;
}

const SAVE_HEAD = 'UPDATE accounts SET rev = $2, last_updated = $3 WHERE id = $1';

/**
 * Runs `work` in one transaction holding the account's lock. Because the lock is held until
 * COMMIT and the next writer reads the counters only after getting it, change numbers and
 * `updated` stamps are handed out in commit order, also across processes sharing the database.
 */
export async function writeForAccount<T>(
  pool: pg.Pool,
  accountId: number,
  work: (tx: WriteTx) => Promise<T>,
  now: () => Micros,
): Promise<T> {
  const lease = await Lease.take(pool);
  let tx: PostgresWriteTx | undefined;
  try {
    await lease.client.query('BEGIN');
    const locked = await lease.client.query<LockedAccountRow>(LOCK_ACCOUNT, [accountId]);
    const row = locked.rows[0];
    if (row === undefined) throw new NoSuchAccountError(accountId);
    const start = { rev: numberFromBigint(row.rev), updated: numberFromBigint(row.last_updated) };
    const usage = { records: numberFromBigint(row.stored_records), bytes: numberFromBigint(row.stored_bytes) };
    tx = new PostgresWriteTx(lease.client, accountId, start, usage, now);
    const result = await work(tx);
    tx.finish();
    const end = tx.changedHead;
    if (end !== null) await lease.client.query(SAVE_HEAD, [accountId, end.rev, end.updated]);
    await lease.client.query('COMMIT');
    return result;
  } catch (error) {
    tx?.finish();
    await lease.rollback(error);
    throw error;
  } finally {
    lease.release();
  }
}
