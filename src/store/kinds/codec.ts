import type { DraftsByKind, RecordsByKind, SyncKind } from '../../domain/sync.js';
import { STAMP_COLUMNS, type ColumnType, type ColumnValues, type Columns, type RowOf } from './columns.js';
import type { KindStorage } from './records.js';

/** How an engine writes and reads each column type; `column` names the column in a failure. */
export interface EngineCodec {
  readonly encode: { readonly [T in ColumnType]: (value: ColumnValues[T], field: string) => unknown };
  readonly decode: { readonly [T in ColumnType]: (raw: unknown, column: string) => ColumnValues[T] };
}

/** A kind's storage as one engine reads and writes it: derived once, used per row. */
export interface KindCodec<K extends SyncKind> {
  readonly kind: K;
  readonly table: string;
  /** Every column, in select-list order. */
  readonly columns: readonly string[];
  /** The columns a put writes besides the stamps, in the order `encodeDraft` gives their values. */
  readonly draftColumns: readonly string[];
  readonly liveNameIndex: string | null;
  encodeDraft(draft: DraftsByKind[K]): unknown[];
  /** A row read as an array in select-list order (SQLite's raw mode). */
  fromTuple(tuple: readonly unknown[]): RecordsByKind[K];
  /** A row read as an object keyed by column name (pg). */
  fromObject(row: Readonly<Record<string, unknown>>): RecordsByKind[K];
}

const STAMPS: ReadonlySet<string> = new Set(STAMP_COLUMNS);

export function kindCodec<K extends SyncKind>(storage: KindStorage<K, Columns>, codec: EngineCodec): KindCodec<K> {
  const columns = Object.keys(storage.columns);
  const draftColumns = columns.filter((name) => !STAMPS.has(name));
  const specs = columns.map((name) => {
    const spec = storage.columns[name];
    if (spec === undefined) throw new Error(`no column ${name}`);
    return { name, ...spec };
  });
  const drafts = specs.filter((spec) => !STAMPS.has(spec.name));
  const encoders = drafts.map((spec) => (value: unknown) => encodeAs(codec, spec.type, value, spec.field));
  const decoders = specs.map((spec) => (raw: unknown) => codec.decode[spec.type](raw, `${storage.table}.${spec.name}`));

  const fromValues = (valueAt: (index: number, name: string) => unknown): RecordsByKind[K] => {
    const row: Record<string, unknown> = {};
    for (let index = 0; index < specs.length; index += 1) {
      const spec = specs[index];
      const decode = decoders[index];
      if (spec !== undefined && decode !== undefined) row[spec.name] = decode(valueAt(index, spec.name));
    }
    // Every value was decoded by its column's type just above.
    return storage.fromRow(row as RowOf<Columns>);
  };

  return {
    kind: storage.kind,
    table: storage.table,
    columns,
    draftColumns,
    liveNameIndex: storage.liveNameIndex,
    encodeDraft(draft) {
      const row: Readonly<Record<string, unknown>> = storage.toRow(draft);
      return drafts.map((spec, index) => encoders[index]?.(row[spec.name]));
    },
    fromTuple: (tuple) => fromValues((index) => tuple[index]),
    fromObject: (row) => fromValues((_index, name) => row[name]),
  };
}

/**
 * The value comes from toRow, which the compiler holds to the column's type; the switch hands
 * it to the encoder of that type.
 */
function encodeAs(codec: EngineCodec, type: ColumnType, value: unknown, field: string): unknown {
  const encoders: Readonly<Record<ColumnType, (value: never, field: string) => unknown>> = codec.encode;
  return encoders[type](value as never, field);
}
