import type pg from 'pg';
import type { RecordsByKind, SyncKind } from '../store.js';
import {
  CONTEXT_COLUMNS,
  PROJECT_COLUMNS,
  TASK_COLUMNS,
  contextFromRow,
  projectFromRow,
  taskFromRow,
  type ContextRow,
  type ProjectRow,
  type TaskRow,
} from './rows.js';

/** Either the pool (one-off statements) or a leased connection (inside a transaction). */
export type Queryable = pg.Pool | pg.PoolClient;

/** How one synced kind is stored: its table, and reading its rows into records. */
export interface KindTable<T> {
  readonly table: 'tasks' | 'projects' | 'contexts';
  /**
   * Runs `SELECT <columns> FROM <table> WHERE <condition>` (the condition may end in ORDER BY /
   * LIMIT; values only through `params`) and returns the records.
   */
  select(db: Queryable, condition: string, params: readonly unknown[]): Promise<T[]>;
}

function kindTable<T, Row extends pg.QueryResultRow>(
  table: KindTable<T>['table'],
  columns: string,
  fromRow: (row: Row) => T,
): KindTable<T> {
  return {
    table,
    async select(db, condition, params) {
      // The row type is what the column list and the schema promise; pg does not check it.
      const result = await db.query<Row>(`SELECT ${columns} FROM ${table} WHERE ${condition}`, [...params]);
      return result.rows.map(fromRow);
    },
  };
}

export const KIND_TABLES: { readonly [K in SyncKind]: KindTable<RecordsByKind[K]> } = {
  task: kindTable<RecordsByKind['task'], TaskRow>('tasks', TASK_COLUMNS, taskFromRow),
  project: kindTable<RecordsByKind['project'], ProjectRow>('projects', PROJECT_COLUMNS, projectFromRow),
  context: kindTable<RecordsByKind['context'], ContextRow>('contexts', CONTEXT_COLUMNS, contextFromRow),
};
