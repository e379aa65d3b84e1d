/*
 * What a row of the sign-in storage is, told once for both engines (rows.ts says it for each
 * table): what a statement reads, by column name and type, and the domain value a row of it makes;
 * what an insert writes, and from what. An engine brings only its dialect: its codec of the column
 * types (src/store/kinds/codec.ts) and its placeholders; `EngineRows` joins them.
 */
import type { EngineCodec } from '../kinds/codec.js';
import type { ColumnType, ColumnValues } from '../kinds/columns.js';

/** Columns by name, in select-list (or insert) order, each with its type. */
export type AuthColumns = Readonly<Record<string, ColumnType>>;

/** A row of those columns as domain values. */
export type AuthRowOf<C extends AuthColumns> = { readonly [N in keyof C]: ColumnValues[C[N]] };

/** A row as a driver hands it back: values keyed by column name (pg, and better-sqlite3 by default). */
export type DriverRow = Readonly<Record<string, unknown>>;

type Entries = readonly (readonly [name: string, type: ColumnType])[];

/** What a statement reads: its select list, and the value each row of it makes. */
export interface RowShape<C extends AuthColumns, V> {
  /** Names the columns in a failure to decode: the table, or what the statement joins. */
  readonly source: string;
  /** Each column by name, or by the expression that gives it (`a.id`, `s.created AS session_created`). */
  readonly select: string;
  readonly entries: Entries;
  decode(row: AuthRowOf<C>): V;
}

/** What an insert writes: the table, its columns in order, and the row a value makes. */
export interface InsertShape<C extends AuthColumns, V> {
  readonly table: string;
  readonly entries: Entries;
  toRow(value: V): AuthRowOf<C>;
}

function entriesOf(columns: AuthColumns): Entries {
  return Object.entries(columns);
}

/** The named columns, in the order given. */
export function pick<C extends AuthColumns, const N extends keyof C & string>(
  columns: C,
  names: readonly N[],
): { readonly [K in N]: C[K] } {
  const picked: Partial<Record<N, ColumnType>> = {};
  for (const name of names) picked[name] = columns[name];
  // Every name of N was given a type of C just above.
  return picked as { readonly [K in N]: C[K] };
}

/** Each column as `alias.column`, for a statement that joins tables with names in common. */
export function qualified<C extends AuthColumns>(alias: string, columns: C): { readonly [N in keyof C]: string } {
  return Object.fromEntries(Object.keys(columns).map((name) => [name, `${alias}.${name}`])) as {
    // One entry per column of C, made from its keys just above.
    readonly [N in keyof C]: string;
  };
}

export function rowShape<C extends AuthColumns, V>(
  source: string,
  columns: C,
  decode: (row: AuthRowOf<C>) => V,
  expressions: { readonly [N in keyof C]?: string } = {},
): RowShape<C, V> {
  const entries = entriesOf(columns);
  const select = entries
    .map(([name]) => {
      const expression: string | undefined = expressions[name];
      if (expression === undefined) return name;
      return expression.endsWith(`.${name}`) ? expression : `${expression} AS ${name}`;
    })
    .join(', ');
  return { source, select, entries, decode };
}

export function insertShape<C extends AuthColumns, V>(
  table: string,
  columns: C,
  toRow: (value: V) => AuthRowOf<C>,
): InsertShape<C, V> {
  return { table, entries: entriesOf(columns), toRow };
}

/** The shapes as one engine writes and reads them. */
export interface EngineRows {
  /** The value a row read by `shape` makes, each column decoded by the engine's codec. */
  decode<C extends AuthColumns, V>(shape: RowShape<C, V>, row: DriverRow): V;
  /** `INSERT INTO table (columns) VALUES (placeholders)`. */
  insert<C extends AuthColumns, V>(shape: InsertShape<C, V>): string;
  /** `INSERT INTO table (columns)`, for an insert whose values come from a SELECT. */
  insertInto<C extends AuthColumns, V>(shape: InsertShape<C, V>): string;
  /** The insert's placeholders in column order, as the engine writes them. */
  placeholders<C extends AuthColumns, V>(shape: InsertShape<C, V>): string;
  /** The insert's parameters for `value`, in column order, encoded by the engine's codec. */
  values<C extends AuthColumns, V>(shape: InsertShape<C, V>, value: V): unknown[];
}

/** `placeholder(n)` writes the engine's placeholder of the n-th parameter (from 1). */
export function engineRows(codec: EngineCodec, placeholder: (position: number) => string): EngineRows {
  const placeholders = (shape: { readonly entries: Entries }): string =>
    shape.entries.map((_entry, index) => placeholder(index + 1)).join(', ');
  const insertInto = (shape: { readonly table: string; readonly entries: Entries }): string =>
    `INSERT INTO ${shape.table} (${shape.entries.map(([name]) => name).join(', ')})`;
  return {
    decode: rowDecoder(codec),
    insert: (shape) => `${insertInto(shape)} VALUES (${placeholders(shape)})`,
    insertInto,
    placeholders,
    values(shape, value) {
      const row: DriverRow = shape.toRow(value);
      return shape.entries.map(([name, type]) => encodeAs(codec, type, row[name], name));
    },
  };
}

/** One column as an engine decodes it, with the name a failure gives it. */
interface ColumnDecoder {
  readonly name: string;
  readonly label: string;
  decode(raw: unknown, column: string): unknown;
}

/**
 * Each shape's column decoders, made on first use: the token check decodes a row on every
 * request, so nothing is looked up or put together per row but the row itself.
 */
function rowDecoder(codec: EngineCodec): <C extends AuthColumns, V>(shape: RowShape<C, V>, row: DriverRow) => V {
  const decodersOf = new WeakMap<object, readonly ColumnDecoder[]>();
  return <C extends AuthColumns, V>(shape: RowShape<C, V>, row: DriverRow): V => {
    let decoders = decodersOf.get(shape);
    if (decoders === undefined) {
      decoders = shape.entries.map(([name, type]) => ({
        name,
        label: `${shape.source}.${name}`,
        decode: codec.decode[type],
      }));
      decodersOf.set(shape, decoders);
    }
    const decoded: Record<string, unknown> = {};
    for (const column of decoders) decoded[column.name] = column.decode(row[column.name], column.label);
    // Every column of the shape was decoded by its type just above.
    return shape.decode(decoded as AuthRowOf<C>);
  };
}

/**
 * The value comes from toRow, which the compiler holds to the column's type; this hands it to the
 * encoder of that type. A refused value is reported under the column's name.
 */
function encodeAs(codec: EngineCodec, type: ColumnType, value: unknown, field: string): unknown {
  const encoders: Readonly<Record<ColumnType, (value: never, field: string) => unknown>> = codec.encode;
  return encoders[type](value as never, field);
}
