import type { NamedKind, RecordsByKind, SyncKind } from '../../domain/sync.js';
import type { Task } from '../../domain/task.js';
import { decodeOutcome } from '../kinds/kept-outcome.js';
import { LABEL_ID_COLUMN, LABEL_NAME_COLUMN } from '../kinds/records.js';
import type { KeptOutcome, LabelPending } from '../store.js';
import { KIND_TABLES, type Queryable } from './tables.js';
import { numberFromBigint, type BigintText } from './values.js';

/*
 * The reads a write makes of one account: on its locked transaction's connection, or on the pool
 * when the write is prepared before committing in one statement.
 */

async function first<K extends SyncKind>(
  db: Queryable,
  accountId: number,
  kind: K,
  condition: string,
  value: string,
): Promise<RecordsByKind[K] | undefined> {
  const [record] = await KIND_TABLES[kind].select(db, `account_id = $1 AND ${condition}`, [accountId, value]);
  return record;
}

export function readRecord<K extends SyncKind>(
  db: Queryable,
  accountId: number,
  kind: K,
  id: string,
): Promise<RecordsByKind[K] | undefined> {
  return first(db, accountId, kind, 'id = $2', id);
}

export function readLiveLabel<K extends NamedKind>(
  db: Queryable,
  accountId: number,
  kind: K,
  name: string,
): Promise<RecordsByKind[K] | undefined> {
  return first(db, accountId, kind, 'name = $2 AND deleted IS NULL', name);
}

export function readTasksWithLabel(
  db: Queryable,
  accountId: number,
  kind: NamedKind,
  id: string,
  pending?: LabelPending,
): Promise<Task[]> {
  const live = `account_id = $1 AND ${LABEL_ID_COLUMN[kind]} = $2 AND deleted IS NULL`;
  if (pending === undefined) return KIND_TABLES.task.select(db, `${live} ORDER BY rev`, [accountId, id]);
  return KIND_TABLES.task.select(
    db,
    `${live} AND ${LABEL_NAME_COLUMN[kind]} IS DISTINCT FROM $3 ORDER BY rev LIMIT $4`,
    [accountId, id, pending.shown?.name ?? null, pending.limit ?? null],
  );
}

export function readChildren(db: Queryable, accountId: number, parentIds: readonly string[]): Promise<Task[]> {
  return KIND_TABLES.task.select(
    db,
    'account_id = $1 AND parent_id = ANY($2::text[]) AND deleted IS NULL ORDER BY rev',
    [accountId, parentIds],
  );
}

export async function readKept(db: Queryable, accountId: number, key: string): Promise<KeptOutcome | undefined> {
  const result = await db.query<{ request_hash: string; outcome: string; created: BigintText }>(
    'SELECT request_hash, outcome, created FROM idempotency_answers WHERE account_id = $1 AND key = $2',
    [accountId, key],
  );
  const [row] = result.rows;
  return row === undefined
    ? undefined
    : { requestHash: row.request_hash, outcome: decodeOutcome(row.outcome), created: numberFromBigint(row.created) };
}
