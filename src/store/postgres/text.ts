import { invalid } from '../../domain/errors.js';

/**
 * PostgreSQL text cannot hold U+0000, which JSON allows. Refusing it as an invalid field, before
 * the statement, gives the client E004 naming the field instead of an internal error.
 */
export function storableText<T extends string | null>(field: string, value: T): T {
  if (value !== null && value.includes('\u0000')) throw invalid(field, 'must not contain U+0000');
  return value;
}

export function storableTexts(field: string, values: readonly string[]): string[] {
  return values.map((value) => storableText(field, value));
}
