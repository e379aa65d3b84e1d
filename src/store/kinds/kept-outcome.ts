import type { SyncKind, WriteOutcome } from '../../domain/sync.js';
import { holdsType, type Columns, type RowOf } from './columns.js';
import { COLUMN_VALUES, KIND_STORAGE } from './records.js';

/*
 * A write's outcome kept for retries, as text in the store: the records as rows of their kind's
 * columns (domain values, not the wire format), the zone and the shape. A retry is rendered from
 * it anew, byte for byte as the first answer, whatever changed in the account since.
 */

interface KeptText {
  readonly version: 1;
  readonly kind: SyncKind;
  readonly zone: string;
  readonly many: boolean;
  readonly rows: readonly (readonly unknown[])[];
}

export function encodeOutcome<K extends SyncKind>(outcome: WriteOutcome<K>): string {
  const toValues = COLUMN_VALUES[outcome.kind];
  const kept: KeptText = {
    version: 1,
    kind: outcome.kind,
    zone: outcome.zone,
    many: outcome.many,
    rows: outcome.records.map((record) => toValues(record)),
  };
  return JSON.stringify(kept);
}

/** Whether a stored or heard name is one of the synced kinds. */
export function isSyncKind(value: unknown): value is SyncKind {
  return typeof value === 'string' && Object.hasOwn(KIND_STORAGE, value);
}

/** The outcome back from its text; anything else than what encodeOutcome wrote is refused. */
export function decodeOutcome(text: string): WriteOutcome {
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== 'object' || parsed === null) throw new Error('a kept outcome is not an object');
  // Every field is checked below before it is used.
  const { version, kind, zone, many, rows } = parsed as Partial<Record<keyof KeptText, unknown>>;
  if (
    version !== 1 ||
    !isSyncKind(kind) ||
    typeof zone !== 'string' ||
    typeof many !== 'boolean' ||
    !Array.isArray(rows)
  ) {
    throw new Error('a kept outcome has an unknown shape');
  }
  return { kind, zone, many, records: rows.map((row) => recordOf(kind, row)) };
}

function recordOf<K extends SyncKind>(kind: K, values: unknown): WriteOutcome<K>['records'][number] {
  const storage = KIND_STORAGE[kind];
  const row = rowOf(storage.columns, values);
  return storage.fromRow(row);
}

/**
 * A kept row's values by column. A row kept before a column was added ends before it, and reads
 * it as the column's `keptBefore`: an outcome kept across an upgrade still replays.
 */
function rowOf(columns: Columns, values: unknown): RowOf<Columns> {
  const names = Object.keys(columns);
  if (!Array.isArray(values) || values.length > names.length) throw new Error('a kept row has the wrong length');
  const row: Record<string, unknown> = {};
  names.forEach((name, index) => {
    const column = columns[name];
    if (column === undefined) throw new Error(`no column ${name}`);
    const kept = index < values.length;
    if (!kept && column.keptBefore === undefined) throw new Error('a kept row has the wrong length');
    const value: unknown = kept ? values[index] : column.keptBefore;
    if (!holdsType(column.type, value)) throw new Error(`a kept row has a bad ${name}`);
    row[name] = value;
  });
  // Each value was checked against its column's type above.
  return row as RowOf<Columns>;
}
