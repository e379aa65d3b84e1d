/*
 * The checks a decoder makes on what a driver handed back, naming the column when the data does
 * not have the type the schema promises (a file edited by hand, say).
 */

export function expectString(raw: unknown, column: string): string {
  if (typeof raw !== 'string') throw new Error(`${column} holds ${typeof raw}, not text`);
  return raw;
}

export function expectStringOrNull(raw: unknown, column: string): string | null {
  return raw === null ? null : expectString(raw, column);
}

export function expectInteger(raw: unknown, column: string): number {
  if (typeof raw !== 'number' || !Number.isSafeInteger(raw))
    throw new Error(`${column} holds ${String(raw)}, not an integer`);
  return raw;
}

export function expectStrings(raw: unknown, column: string): readonly string[] {
  if (!Array.isArray(raw) || !raw.every((item) => typeof item === 'string')) {
    throw new Error(`${column} does not hold a list of text`);
  }
  return raw;
}
