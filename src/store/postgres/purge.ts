import type pg from 'pg';
import type { Micros } from '../../domain/time.js';
import { KIND_STORAGE } from '../kinds/records.js';
import { Lease } from './lease.js';
import type { ServerTimeouts } from './pool.js';
import { numberFromBigint, type BigintText } from './values.js';

/**
 * Deletes one account's tombstones older than the cut-off from all synced tables and raises (never
 * lowers) the account's purge marks to the largest rev and updated it removed, in one statement.
 * A tombstone's age is the server's time of its deletion, its `updated`, never the `deleted` a
 * client sent: a backdated deletion must not expire other devices' sync positions early.
 */
const TOMBSTONE_TABLES = Object.values(KIND_STORAGE).map((storage) => storage.table);
const PURGE_ACCOUNT = `
WITH ${TOMBSTONE_TABLES.map(
  (table) =>
    `purged_${table} AS (
  DELETE FROM ${table} WHERE account_id = $1 AND deleted IS NOT NULL AND updated < $2 RETURNING rev, updated
)`,
).join(', ')}, purged AS (
  ${TOMBSTONE_TABLES.map((table) => `SELECT rev, updated FROM purged_${table}`).join('\n  UNION ALL ')}
), totals AS (
  SELECT count(*) AS count, max(rev) AS max_rev, max(updated) AS max_updated FROM purged
), marked AS (
  UPDATE accounts
  SET purged_rev = GREATEST(purged_rev, totals.max_rev), purged_updated = GREATEST(purged_updated, totals.max_updated)
  FROM totals WHERE accounts.id = $1 AND totals.count > 0
)
SELECT count FROM totals`;

/**
 * Purges account by account, each in its own short transaction holding the account's write lock,
 * so a purge never races a write of the same account and never spans accounts' data. Listing every
 * account is the one statement that does: a maintenance sweep (administration).
 */
export async function purgeTombstones(pool: pg.Pool, deletedBefore: Micros, timeouts: ServerTimeouts): Promise<number> {
  const accounts = await pool.query<{ id: BigintText }>('SELECT id FROM accounts ORDER BY id');
  let total = 0;
  for (const account of accounts.rows) {
    total += await purgeAccount(pool, numberFromBigint(account.id), deletedBefore, timeouts);
  }
  return total;
}

async function purgeAccount(
  pool: pg.Pool,
  accountId: number,
  deletedBefore: Micros,
  timeouts: ServerTimeouts,
): Promise<number> {
  const lease = await Lease.begin(pool, 'BEGIN', timeouts);
  try {
    const locked = await lease.client.query('SELECT 1 FROM accounts WHERE id = $1 FOR NO KEY UPDATE', [accountId]);
    let count = 0;
    if (locked.rowCount === 1) {
      const result = await lease.client.query<{ count: BigintText }>(PURGE_ACCOUNT, [accountId, deletedBefore]);
      count = numberFromBigint(result.rows[0]?.count ?? '0');
    }
    await lease.client.query('COMMIT');
    return count;
  } catch (error) {
    await lease.rollback(error);
    throw error;
  } finally {
    lease.release();
  }
}
