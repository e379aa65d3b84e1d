import pg from 'pg';
import { DomainError, invalid } from '../../domain/errors.js';
import type { Micros } from '../../domain/time.js';
import type { WriteTx } from '../store.js';
import { COMMIT_CALL, commitArguments, USAGE_MISMATCH_STATE } from './commit-function.js';
import { isUniqueViolation, NoSuchAccountError } from './errors.js';
import { Lease } from './lease.js';
import { NeedsLockedWrite, SpeculativeWriteTx, type PreparedWrite } from './speculative-tx.js';
import { STANDING_COLUMNS, standingFromRow, type Standing, type Standings, type StandingRow } from './standings.js';
import { KIND_TABLES } from './tables.js';
import { numberFromBigint, type BigintText } from './values.js';
import { PostgresWriteTx } from './write-tx.js';

/**
 * How often a write is prepared again when the account moved under it (another process wrote it)
 * before it is done the old way, under the lock, where it cannot lose the race.
 */
const PREPARED_ATTEMPTS = 2;

/**
 * Issue #15: a write in one round trip. The work runs against a SpeculativeWriteTx (reads on the
 * pool, puts kept in memory), then one call of the commit function writes it all if the account
 * has not moved since its standing was read. The standing comes from the request's token check
 * or this process's last commit, so a create that reads nothing costs that one call. A write the
 * commit refuses is prepared again from where the account now stands; one that needs what only the
 * lock gives (an unseen retry key, a usage counted otherwise, a storage-full refusal to confirm)
 * is done under the lock.
 */
export async function writeForAccount<T>(
  pool: pg.Pool,
  accountId: number,
  work: (tx: WriteTx) => Promise<T>,
  now: () => Micros,
  standings: Standings,
): Promise<T> {
  for (let attempt = 0; attempt < PREPARED_ATTEMPTS; attempt += 1) {
    const from = standings.get(accountId) ?? (await readStanding(pool, accountId));
    const tx = new SpeculativeWriteTx(pool, accountId, from, now);
    let result: T;
    try {
      result = await work(tx);
    } catch (error) {
      if (needsLock(error)) break;
      throw error;
    } finally {
      tx.finish();
    }
    const prepared = tx.prepared();
    // A write that wrote nothing and rests on one read at most is answered as read.
    if (prepared.to === null && prepared.keep === null && prepared.reads <= 1) return result;
    let committed: CommitAnswer;
    try {
      committed = await commitPrepared(pool, accountId, prepared);
    } catch (error) {
      if (isUsageMismatch(error)) break;
      throw error;
    }
    standings.note(accountId, committed.standing);
    if (committed.outcome === 'committed') return result;
  }
  standings.forget(accountId);
  return writeLocked(pool, accountId, work, now);
}

/** Refusals that a stale standing may have caused, and writes that need the lock. */
function needsLock(error: unknown): boolean {
  return error instanceof NeedsLockedWrite || (error instanceof DomainError && error.problem.kind === 'storage_full');
}

function isUsageMismatch(error: unknown): boolean {
  return error instanceof pg.DatabaseError && error.code === USAGE_MISMATCH_STATE;
}

async function readStanding(pool: pg.Pool, accountId: number): Promise<Standing> {
  const result = await pool.query<StandingRow>(`SELECT ${STANDING_COLUMNS.join(', ')} FROM accounts WHERE id = $1`, [
    accountId,
  ]);
  const [row] = result.rows;
  if (row === undefined) throw new NoSuchAccountError(accountId);
  return standingFromRow(row);
}

interface CommitAnswer {
  readonly outcome: 'committed' | 'moved';
  readonly standing: Standing;
}

interface CommitRow extends StandingRow {
  readonly outcome: string;
}

async function commitPrepared(pool: pg.Pool, accountId: number, prepared: PreparedWrite): Promise<CommitAnswer> {
  let result: pg.QueryResult<CommitRow>;
  try {
    result = await pool.query<CommitRow>(COMMIT_CALL, commitArguments(accountId, prepared));
  } catch (error) {
    throw nameTaken(error) ? invalid('name', 'taken') : error;
  }
  const [row] = result.rows;
  if (row === undefined) throw new Error('the commit function answered no row');
  if (row.outcome === 'missing') throw new NoSuchAccountError(accountId);
  if (row.outcome !== 'committed' && row.outcome !== 'moved') throw new Error(`the commit answered ${row.outcome}`);
  return { outcome: row.outcome, standing: standingFromRow(row) };
}

/** The service checks name clashes first; the unique index firing is the last line of defence. */
function nameTaken(error: unknown): boolean {
  return Object.values(KIND_TABLES).some(
    (table) => table.codec.liveNameIndex !== null && isUniqueViolation(error, table.codec.liveNameIndex),
  );
}

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
async function writeLocked<T>(
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
