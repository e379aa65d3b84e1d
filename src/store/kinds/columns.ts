import type { Micros } from '../../domain/time.js';

/** What a column holds, in domain terms; each engine encodes every type in one place of its own. */
export interface ColumnValues {
  readonly text: string;
  readonly textOrNull: string | null;
  readonly bool: boolean;
  readonly int: number;
  readonly micros: Micros;
  readonly microsOrNull: Micros | null;
  readonly textList: readonly string[];
}
export type ColumnType = keyof ColumnValues;

/**
 * A column: its type, the request field a refused value is reported under, and for a column added
 * later, what it reads as in a write outcome kept before it.
 */
export interface Column {
  readonly type: ColumnType;
  readonly field: string;
  /**
   * For a column added after write outcomes were first kept (it comes after every older one):
   * what it reads as in a row kept before it existed, which ends before it.
   */
  readonly keptBefore?: ColumnValues[ColumnType];
}

/** The columns of a kind's table, in select-list order (object keys keep their order). */
export type Columns = Readonly<Record<string, Column>>;

/** A row of those columns as domain values. */
export type RowOf<C extends Columns> = { readonly [N in keyof C]: ColumnValues[C[N]['type']] };

/** The columns every synced kind has, stamped by the store on every put. */
export const STAMP_COLUMNS = ['created', 'updated', 'rev'] as const;
export type StampColumn = (typeof STAMP_COLUMNS)[number];

/** A row as a put writes it: everything but the stamps. */
export type DraftRowOf<C extends Columns> = Omit<RowOf<C>, StampColumn>;

export function column<T extends ColumnType>(type: T, field: string): { readonly type: T; readonly field: string } {
  return { type, field };
}

/** A column added later, last of all: a kept row that ends before it reads it as `keptBefore`. */
export function addedColumn<T extends ColumnType>(
  type: T,
  field: string,
  keptBefore: ColumnValues[T],
): { readonly type: T; readonly field: string; readonly keptBefore: ColumnValues[T] } {
  return { type, field, keptBefore };
}

/** Whether a decoded value has the column's type: kept outcomes are checked with it on the way back. */
export function holdsType(type: ColumnType, value: unknown): boolean {
  switch (type) {
    case 'text':
      return typeof value === 'string';
    case 'textOrNull':
      return value === null || typeof value === 'string';
    case 'bool':
      return typeof value === 'boolean';
    case 'int':
    case 'micros':
      return Number.isSafeInteger(value);
    case 'microsOrNull':
      return value === null || Number.isSafeInteger(value);
    case 'textList':
      return Array.isArray(value) && value.every((item) => typeof item === 'string');
  }
}
