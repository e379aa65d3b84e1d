import type { Statement } from 'better-sqlite3';
import { engineRows, type AuthColumns, type DriverRow, type InsertShape, type RowShape } from '../auth/shapes.js';
import { SQLITE_CODEC } from './codec.js';
import type { SqliteDatabase } from './connection.js';

/** The rows of sign-in (store/auth/rows.ts) as SQLite writes and reads them: its codec, `?` placeholders. */
export const SQLITE_ROWS = engineRows(SQLITE_CODEC, () => '?');

/** A prepared read whose rows come back decoded. */
export interface Read<P extends unknown[], V> {
  get(...params: P): V | undefined;
  all(...params: P): V[];
}

/** The statement's rows, decoded as `shape` reads them. */
export function decoding<P extends unknown[], C extends AuthColumns, V>(
  shape: RowShape<C, V>,
  statement: Statement<P, DriverRow>,
): Read<P, V> {
  const decode = (row: DriverRow): V => SQLITE_ROWS.decode(shape, row);
  return {
    get(...params) {
      const row = statement.get(...params);
      return row === undefined ? undefined : decode(row);
    },
    all: (...params) => statement.all(...params).map(decode),
  };
}

/** A prepared insert of the shape: `run(value)` writes the row `value` makes. */
export function prepareInsert<C extends AuthColumns, V>(
  db: SqliteDatabase,
  shape: InsertShape<C, V>,
  suffix = '',
): (value: V) => number {
  const statement = db.prepare(`${SQLITE_ROWS.insert(shape)}${suffix}`);
  return (value) => statement.run(...SQLITE_ROWS.values(shape, value)).changes;
}
