import { createHash } from 'node:crypto';
import type pg from 'pg';
import { SYNC_KINDS, type SyncKind } from '../../domain/sync.js';
import type { PreparedWrite } from './speculative-tx.js';
import { KIND_TABLES } from './tables.js';

/*
 * Issue #15. A write prepared outside any transaction (see speculative-tx.ts) is committed by one
 * call of this function: one round trip, one statement, so also through a pooler in transaction
 * mode. It takes the account row's lock, checks that the account still stands where the write
 * was prepared (else it answers `moved` and writes nothing), then writes the rows, the retry
 * key's outcome and the new head, and checks that the usage triggers counted what was predicted.
 *
 * The text is derived from the kinds' descriptions, so it is not a migration: `migrate()` creates
 * it under a name that carries a digest of its text. A new column makes a new function next to
 * the old one, and processes of the old and the new version can share the database during an
 * upgrade, each calling its own.
 */

/** SQLSTATE raised when the usage triggers counted other than predicted: the write is redone locked. */
export const USAGE_MISMATCH_STATE = 'TSU01';

/**
 * The order the tables are written in: the labels a task names (the kinds with live names) first,
 * then the other kinds, each in SYNC_KINDS order. No foreign key needs it, but it is part of the
 * function's text, so of its name.
 */
const labelsFirst = (kind: SyncKind): number => (KIND_TABLES[kind].codec.liveNameIndex === null ? 1 : 0);
const KINDS = [...SYNC_KINDS].sort((a, b) => labelsFirst(a) - labelsFirst(b));

function upsertRows(table: string, columns: readonly string[], conflictUpdates: string): string {
  const list = columns.join(', ');
  return `  IF p_${table} IS NOT NULL THEN
    INSERT INTO ${table} (${list})
    SELECT ${columns.map((name) => `r.${name}`).join(', ')} FROM jsonb_populate_recordset(NULL::${table}, p_${table}) r
    ON CONFLICT (account_id, id) DO UPDATE SET ${conflictUpdates};
  END IF;`;
}

const UPSERTS = KINDS.map((kind) => {
  const table = KIND_TABLES[kind];
  return upsertRows(table.codec.table, table.putColumns, table.conflictUpdates);
}).join('\n');

/**
 * One argument of the function: its declaration, and where a call takes its value from. The
 * signature and the call's values are both read off one list, so they cannot disagree on order.
 */
interface Parameter {
  readonly declaration: string;
  readonly value: (accountId: number, prepared: PreparedWrite) => unknown;
}

/** Where the write began and ends. */
const HEAD_PARAMETERS: readonly Parameter[] = [
  { declaration: 'p_account bigint', value: (accountId) => accountId },
  { declaration: 'p_rev bigint', value: (_account, { from }) => from.rev },
  { declaration: 'p_last_updated bigint', value: (_account, { from }) => from.lastUpdated },
  { declaration: 'p_purged_rev bigint', value: (_account, { from }) => from.purgedRev },
  { declaration: 'p_new_rev bigint', value: (_account, { to }) => to?.rev ?? null },
  { declaration: 'p_new_last_updated bigint', value: (_account, { to }) => to?.lastUpdated ?? null },
  { declaration: 'p_records bigint', value: (_account, { to }) => to?.usage.records ?? null },
  { declaration: 'p_bytes bigint', value: (_account, { to }) => to?.usage.bytes ?? null },
];

/** The rows of each kind as one jsonb argument, in write order; null for none. */
const ROWS_PARAMETERS: readonly Parameter[] = KINDS.map((kind) => ({
  declaration: `p_${KIND_TABLES[kind].codec.table} jsonb`,
  value: (_account, { rows }) => (rows[kind].length === 0 ? null : JSON.stringify(rows[kind])),
}));

/** The retry key's outcome to keep. */
const KEEP_PARAMETERS: readonly Parameter[] = [
  { declaration: 'p_keep_key text', value: (_account, { keep }) => keep?.key ?? null },
  { declaration: 'p_keep_seen bigint', value: (_account, { keep }) => keep?.seen ?? null },
  { declaration: 'p_keep_hash text', value: (_account, { keep }) => keep?.requestHash ?? null },
  { declaration: 'p_keep_outcome text', value: (_account, { keep }) => keep?.outcome ?? null },
  { declaration: 'p_keep_created bigint', value: (_account, { keep }) => keep?.created ?? null },
];
const PARAMETERS = [...HEAD_PARAMETERS, ...ROWS_PARAMETERS, ...KEEP_PARAMETERS];

const SIGNATURE = `(
  ${PARAMETERS.map((parameter) => parameter.declaration).join(',\n  ')}
) RETURNS TABLE (outcome text, rev bigint, last_updated bigint, purged_rev bigint, stored_records bigint, stored_bytes bigint)`;

// use_column: the returned columns (rev, last_updated…) are also the tables' column names.
const BODY = `
#variable_conflict use_column
DECLARE
  head record;
  kept_rows bigint;
BEGIN
  SELECT a.rev, a.last_updated, a.purged_rev, a.stored_records, a.stored_bytes INTO head
    FROM accounts a WHERE a.id = p_account FOR NO KEY UPDATE;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'missing'::text, 0::bigint, 0::bigint, 0::bigint, 0::bigint, 0::bigint;
    RETURN;
  END IF;
  IF head.rev <> p_rev OR head.last_updated <> p_last_updated OR head.purged_rev <> p_purged_rev THEN
    RETURN QUERY SELECT 'moved'::text, head.rev, head.last_updated, head.purged_rev, head.stored_records, head.stored_bytes;
    RETURN;
  END IF;
  IF p_keep_key IS NOT NULL THEN
    -- Replaces only the outcome the write saw (none, or an expired one): another request with the
    -- same key that got in first wins, and this one is redone to find its outcome.
    INSERT INTO idempotency_answers AS kept (account_id, key, request_hash, outcome, created)
    VALUES (p_account, p_keep_key, p_keep_hash, p_keep_outcome, p_keep_created)
    ON CONFLICT (account_id, key) DO UPDATE SET request_hash = EXCLUDED.request_hash, outcome = EXCLUDED.outcome,
      created = EXCLUDED.created
    WHERE kept.created = p_keep_seen;
    GET DIAGNOSTICS kept_rows = ROW_COUNT;
    IF kept_rows = 0 THEN
      RETURN QUERY SELECT 'moved'::text, head.rev, head.last_updated, head.purged_rev, head.stored_records, head.stored_bytes;
      RETURN;
    END IF;
  END IF;
${UPSERTS}
  IF p_new_rev IS NOT NULL THEN
    UPDATE accounts a SET rev = p_new_rev, last_updated = p_new_last_updated WHERE a.id = p_account
      RETURNING a.stored_records, a.stored_bytes INTO head.stored_records, head.stored_bytes;
    IF head.stored_records <> p_records OR head.stored_bytes <> p_bytes THEN
      RAISE EXCEPTION 'storage usage counted otherwise than predicted' USING ERRCODE = '${USAGE_MISMATCH_STATE}';
    END IF;
    head.rev := p_new_rev;
    head.last_updated := p_new_last_updated;
  END IF;
  RETURN QUERY SELECT 'committed'::text, head.rev, head.last_updated, head.purged_rev, head.stored_records, head.stored_bytes;
END`;

/** The function's name: a digest of its whole text, so that its versions never collide. */
export const COMMIT_FUNCTION = `task_service_commit_${createHash('sha256').update(SIGNATURE).update(BODY).digest('hex').slice(0, 16)}`;

const CREATE = `CREATE OR REPLACE FUNCTION ${COMMIT_FUNCTION}${SIGNATURE} LANGUAGE plpgsql AS $commit$${BODY}$commit$`;

/** The call, with one parameter per argument in the order of the signature. */
export const COMMIT_CALL = `SELECT outcome, rev, last_updated, purged_rev, stored_records, stored_bytes FROM ${COMMIT_FUNCTION}(${PARAMETERS.map(
  (_parameter, index) => `$${index + 1}`,
).join(', ')})`;

/** The values of COMMIT_CALL's parameters for one prepared write. */
export function commitArguments(accountId: number, prepared: PreparedWrite): unknown[] {
  return PARAMETERS.map((parameter) => parameter.value(accountId, prepared));
}

/** Creates this version's function when the database lacks it; run inside migrate's locked transaction. */
export async function ensureCommitFunction(client: pg.PoolClient): Promise<void> {
  const found = await client.query('SELECT 1 FROM pg_proc WHERE proname = $1', [COMMIT_FUNCTION]);
  if (found.rowCount === 0) await client.query(CREATE);
}
