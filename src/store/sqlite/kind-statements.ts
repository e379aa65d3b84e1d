import { byKind, type NamedKind, type RecordsByKind, type SyncKind } from '../../domain/sync.js';
import { invalid } from '../../domain/errors.js';
import { kindCodec, type KindCodec } from '../kinds/codec.js';
import { KIND_STORAGE, LABEL_ID_COLUMN, LABEL_NAME_COLUMN } from '../kinds/records.js';
import type { Stamp } from '../stamp.js';
import type { LabelPending, ListQuery } from '../store.js';
import { SQLITE_CODEC } from './codec.js';
import type { SqliteDatabase } from './connection.js';
import { isUniqueViolation } from './sqlite-errors.js';

// Records are read as raw rows (arrays, in select-list order): building an object per row costs
// better-sqlite3 about twice as much, which a listing of thousands of rows would feel.

type Codecs = { readonly [K in SyncKind]: KindCodec<K> };

/** Each kind's storage as SQLite reads and writes it, derived once from KIND_STORAGE. */
export const SQLITE_KINDS = byKind<Codecs>(<K extends SyncKind>(kind: K) =>
  kindCodec(KIND_STORAGE[kind], SQLITE_CODEC),
);

type Tuple = readonly unknown[];

function selectList(codec: KindCodec<SyncKind>): string {
  return codec.columns.join(', ');
}

/** Reads one record by id, deleted ones included. */
export interface RecordGetter<R> {
  get(accountId: number, id: string): R | undefined;
}

function prepareGetter<K extends SyncKind>(db: SqliteDatabase, kind: K): RecordGetter<RecordsByKind[K]> {
  const codec: KindCodec<K> = SQLITE_KINDS[kind];
  const byId = db
    .prepare<[accountId: number, id: string], Tuple>(
      `SELECT ${selectList(codec)} FROM ${codec.table} WHERE account_id = ? AND id = ?`,
    )
    .raw();
  return {
    get(accountId, id) {
      const row = byId.get(accountId, id);
      return row === undefined ? undefined : codec.fromTuple(row);
    },
  };
}

/** A limit that SQLite reads as "no limit". */
export const NO_LIMIT = -1;

/** Bound for "no updatedAfter": below every stamp. */
const BEFORE_ALL_TIME = Number.MIN_SAFE_INTEGER;

interface ListParams {
  readonly account_id: number;
  readonly after_rev: number;
  readonly updated_after: number;
  readonly include_deleted: 0 | 1;
  readonly limit: number;
}

export interface RecordLister<R> {
  /** The records matching `query`, at most `limit` (or NO_LIMIT), in ascending rev, all at once. */
  all(accountId: number, query: ListQuery, limit: number): R[];
  /**
   * The same records one by one, stepping the statement only as far as they are taken, so the
   * connection's read transaction must stay open until the generator is done or returned.
   */
  iterate(accountId: number, query: ListQuery, limit: number): Generator<R, void, undefined>;
}

export function prepareLister<K extends SyncKind>(db: SqliteDatabase, kind: K): RecordLister<RecordsByKind[K]> {
  const codec: KindCodec<K> = SQLITE_KINDS[kind];
  const { table } = codec;
  // INDEXED BY pins the plan: the (account_id, rev) index gives ascending rev without a sort.
  const byRev = db
    .prepare<ListParams, Tuple>(
      `SELECT ${selectList(codec)} FROM ${table} INDEXED BY ${table}_by_rev
       WHERE account_id = @account_id AND rev > @after_rev AND updated > @updated_after
         AND (deleted IS NULL OR @include_deleted)
       ORDER BY rev LIMIT @limit`,
    )
    .raw();
  // Within an account every change takes the next rev and a later updated in the same
  // transaction, so ascending updated is ascending rev, and "updated after" is a range of the
  // (account_id, updated) index rather than a scan of the account from its first rev.
  const byUpdated = db
    .prepare<ListParams, Tuple>(
      `SELECT ${selectList(codec)} FROM ${table} INDEXED BY ${table}_by_updated
       WHERE account_id = @account_id AND updated > @updated_after AND (deleted IS NULL OR @include_deleted)
       ORDER BY updated LIMIT @limit`,
    )
    .raw();
  const statementFor = (query: ListQuery) =>
    query.afterRev === undefined && query.updatedAfter !== undefined ? byUpdated : byRev;
  const params = (accountId: number, query: ListQuery, limit: number): ListParams => ({
    account_id: accountId,
    after_rev: query.afterRev ?? 0,
    updated_after: query.updatedAfter ?? BEFORE_ALL_TIME,
    include_deleted: query.includeDeleted ? 1 : 0,
    limit,
  });
  return {
    all(accountId, query, limit) {
      return statementFor(query)
        .all(params(accountId, query, limit))
        .map((row) => codec.fromTuple(row));
    },
    *iterate(accountId, query, limit) {
      for (const row of statementFor(query).iterate(params(accountId, query, limit))) yield codec.fromTuple(row);
    },
  };
}

/**
 * Insert or update by (account_id, id), answering the stored row. A new row takes `updated` as
 * `created`; an existing one keeps its `created`.
 */
function upsertSql(codec: KindCodec<SyncKind>): string {
  const draft = codec.draftColumns;
  const updates = draft.filter((name) => name !== 'id').map((name) => `${name} = excluded.${name}`);
  return `INSERT INTO ${codec.table} (account_id, ${draft.join(', ')}, created, updated, rev)
    VALUES (${['?', ...draft.map(() => '?'), '?', '?', '?'].join(', ')})
    ON CONFLICT (account_id, id) DO UPDATE SET ${[...updates, 'updated = excluded.updated', 'rev = excluded.rev'].join(', ')}
    RETURNING ${selectList(codec)}`;
}

/** The writes of one kind on the write connection, prepared once. */
export interface RecordWriter<K extends SyncKind> {
  readonly get: RecordGetter<RecordsByKind[K]>;
  put(accountId: number, draft: Parameters<KindCodec<K>['encodeDraft']>[0], stamp: Stamp): RecordsByKind[K];
}

function prepareWriter<K extends SyncKind>(db: SqliteDatabase, kind: K): RecordWriter<K> {
  const codec: KindCodec<K> = SQLITE_KINDS[kind];
  const upsert = db.prepare<unknown[], Tuple>(upsertSql(codec)).raw();
  return {
    get: prepareGetter(db, kind),
    put(accountId, draft, stamp) {
      let row: Tuple | undefined;
      try {
        row = upsert.get(accountId, ...codec.encodeDraft(draft), stamp.updated, stamp.updated, stamp.rev);
      } catch (error) {
        // The service checks name clashes first; the index firing is the last line of defence.
        if (codec.liveNameIndex !== null && isUniqueViolation(error)) throw invalid('name', 'taken');
        throw error;
      }
      if (row === undefined) throw new Error('an upsert returned no row');
      return codec.fromTuple(row);
    },
  };
}

/** The live record of a named kind by name, and the live tasks that carry a label. */
export interface LabelReads {
  findLive<K extends NamedKind>(kind: K, accountId: number, name: string): RecordsByKind[K] | undefined;
  withLabel(kind: NamedKind, accountId: number, labelId: string, pending?: LabelPending): RecordsByKind['task'][];
  childrenOf(accountId: number, parentIds: readonly string[]): RecordsByKind['task'][];
}

export function prepareLabelReads(db: SqliteDatabase): LabelReads {
  const liveByName = <K extends NamedKind>(kind: K) => {
    const codec: KindCodec<K> = SQLITE_KINDS[kind];
    const statement = db
      .prepare<[accountId: number, name: string], Tuple>(
        `SELECT ${selectList(codec)} FROM ${codec.table} WHERE account_id = ? AND name = ? AND deleted IS NULL`,
      )
      .raw();
    return (accountId: number, name: string): RecordsByKind[K] | undefined => {
      const row = statement.get(accountId, name);
      return row === undefined ? undefined : codec.fromTuple(row);
    };
  };
  const tasksWith = (kind: NamedKind) => {
    const tasks = SQLITE_KINDS.task;
    // INDEXED BY: left alone, the planner walks the whole account in rev order to spare a sort.
    return db
      .prepare<[accountId: number, labelId: string], Tuple>(
        `SELECT ${selectList(tasks)} FROM tasks INDEXED BY tasks_live_by_${kind}
         WHERE account_id = ? AND ${LABEL_ID_COLUMN[kind]} = ? AND deleted IS NULL ORDER BY rev`,
      )
      .raw();
  };
  // The name is compared here, row by row in SQLite, so that tasks showing it already are never
  // decoded: a rename shown ahead reads only what it is to write.
  const tasksPending = (kind: NamedKind) =>
    db
      .prepare<[accountId: number, labelId: string, shownName: string | null, limit: number], Tuple>(
        `SELECT ${selectList(SQLITE_KINDS.task)} FROM tasks INDEXED BY tasks_live_by_${kind}
         WHERE account_id = ? AND ${LABEL_ID_COLUMN[kind]} = ? AND deleted IS NULL
           AND ${LABEL_NAME_COLUMN[kind]} IS NOT ? ORDER BY rev LIMIT ?`,
      )
      .raw();
  const live: { readonly [K in NamedKind]: (accountId: number, name: string) => RecordsByKind[K] | undefined } = {
    project: liveByName('project'),
    context: liveByName('context'),
  };
  const labelled = { project: tasksWith('project'), context: tasksWith('context') };
  const pendingOf = { project: tasksPending('project'), context: tasksPending('context') };
  const children = db
    .prepare<[accountId: number, parentIds: string], Tuple>(
      `SELECT ${selectList(SQLITE_KINDS.task)} FROM tasks INDEXED BY tasks_children
       WHERE account_id = ? AND parent_id IN (SELECT value FROM json_each(?))
         AND parent_id IS NOT NULL AND deleted IS NULL ORDER BY rev`,
    )
    .raw();
  return {
    findLive: (kind, accountId, name) => live[kind](accountId, name),
    withLabel: (kind, accountId, labelId, pending) =>
      (pending === undefined
        ? labelled[kind].all(accountId, labelId)
        : pendingOf[kind].all(accountId, labelId, pending.shown?.name ?? null, pending.limit ?? -1)
      ).map((row) => SQLITE_KINDS.task.fromTuple(row)),
    childrenOf: (accountId, parentIds) =>
      children.all(accountId, JSON.stringify(parentIds)).map((row) => SQLITE_KINDS.task.fromTuple(row)),
  };
}

type Getters = { readonly [K in SyncKind]: RecordGetter<RecordsByKind[K]> };
type Listers = { readonly [K in SyncKind]: RecordLister<RecordsByKind[K]> };
type Writers = { readonly [K in SyncKind]: RecordWriter<K> };

/** Every kind's getter on one connection. */
export function prepareGetters(db: SqliteDatabase): Getters {
  return byKind<Getters>(<K extends SyncKind>(kind: K) => prepareGetter(db, kind));
}

/** Every kind's lister on one connection. */
export function prepareListers(db: SqliteDatabase): Listers {
  return byKind<Listers>(<K extends SyncKind>(kind: K) => prepareLister(db, kind));
}

/** Every kind's writer on the write connection. */
export function prepareWriters(db: SqliteDatabase): Writers {
  return byKind<Writers>(<K extends SyncKind>(kind: K) => prepareWriter(db, kind));
}
