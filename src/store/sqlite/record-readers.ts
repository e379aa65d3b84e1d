import type { ListQuery, RecordsByKind, SyncKind } from '../store.js';
import type { SqliteDatabase } from './connection.js';
import { CONTEXTS, PROJECTS, TASKS, type RecordTable } from './record-tables.js';

export interface RecordGetter<Rec> {
  /** The account's record with that id, deleted ones included. */
  get(accountId: number, id: string): Rec | undefined;
}

export type RecordGetters = { readonly [K in SyncKind]: RecordGetter<RecordsByKind[K]> };

/** A limit that SQLite reads as "no limit". */
export const NO_LIMIT = -1;

export interface RecordLister<Rec> {
  /** The records matching `query`, at most `limit` (or NO_LIMIT), in ascending rev, all at once. */
  all(accountId: number, query: ListQuery, limit: number): Rec[];
  /**
   * The same records one by one, stepping the statement only as far as they are taken, so the
   * connection's read transaction must stay open until the generator is done or returned.
   */
  iterate(accountId: number, query: ListQuery, limit: number): Generator<Rec, void, undefined>;
}

export function prepareGetters(db: SqliteDatabase): RecordGetters {
  return { task: prepareGetter(db, TASKS), project: prepareGetter(db, PROJECTS), context: prepareGetter(db, CONTEXTS) };
}

/** Each kind's lister, so a connection made for one listing prepares only what it uses. */
export const LISTER_FACTORIES: { readonly [K in SyncKind]: (db: SqliteDatabase) => RecordLister<RecordsByKind[K]> } = {
  task: (db) => prepareLister(db, TASKS),
  project: (db) => prepareLister(db, PROJECTS),
  context: (db) => prepareLister(db, CONTEXTS),
};

export function prepareListers(db: SqliteDatabase): { readonly [K in SyncKind]: RecordLister<RecordsByKind[K]> } {
  return { task: LISTER_FACTORIES.task(db), project: LISTER_FACTORIES.project(db), context: LISTER_FACTORIES.context(db) };
}

function prepareGetter<Row, Rec>(db: SqliteDatabase, table: RecordTable<Row, Rec>): RecordGetter<Rec> {
  const byId = db.prepare<[accountId: number, id: string], Row>(
    `SELECT ${table.columns} FROM ${table.name} WHERE account_id = ? AND id = ?`,
  ).raw();
  return {
    get(accountId, id) {
      const row = byId.get(accountId, id);
      return row === undefined ? undefined : table.fromRow(row);
    },
  };
}

/** Bound for "no updatedAfter": below every stamp. */
const BEFORE_ALL_TIME = Number.MIN_SAFE_INTEGER;

interface ListParams {
  readonly account_id: number;
  readonly after_rev: number;
  readonly updated_after: number;
  readonly include_deleted: 0 | 1;
  readonly limit: number;
}

function listParams(accountId: number, query: ListQuery, limit: number): ListParams {
  return {
    account_id: accountId,
    after_rev: query.afterRev ?? 0,
    updated_after: query.updatedAfter ?? BEFORE_ALL_TIME,
    include_deleted: query.includeDeleted ? 1 : 0,
    limit,
  };
}

function prepareLister<Row, Rec>(db: SqliteDatabase, table: RecordTable<Row, Rec>): RecordLister<Rec> {
  // INDEXED BY pins the plan: the (account_id, rev) index gives ascending rev without a sort.
  const byRev = db.prepare<ListParams, Row>(
    `SELECT ${table.columns} FROM ${table.name} INDEXED BY ${table.name}_by_rev
     WHERE account_id = @account_id AND rev > @after_rev AND updated > @updated_after
       AND (deleted IS NULL OR @include_deleted)
     ORDER BY rev LIMIT @limit`,
  ).raw();
  // Within an account every change takes the next rev and a later updated in the same
  // transaction, so ascending updated is ascending rev, and "updated after" is a range of the
  // (account_id, updated) index rather than a scan of the account from its first rev.
  const byUpdated = db.prepare<ListParams, Row>(
    `SELECT ${table.columns} FROM ${table.name} INDEXED BY ${table.name}_by_updated
     WHERE account_id = @account_id AND updated > @updated_after AND (deleted IS NULL OR @include_deleted)
     ORDER BY updated LIMIT @limit`,
  ).raw();
  const statementFor = (query: ListQuery) =>
    query.afterRev === undefined && query.updatedAfter !== undefined ? byUpdated : byRev;

  return {
    all(accountId, query, limit) {
      return statementFor(query).all(listParams(accountId, query, limit)).map(table.fromRow);
    },
    *iterate(accountId, query, limit) {
      for (const row of statementFor(query).iterate(listParams(accountId, query, limit))) yield table.fromRow(row);
    },
  };
}
