import type { EngineCodec } from '../kinds/codec.js';
import { expectInteger, expectString, expectStringOrNull, expectStrings } from '../kinds/checks.js';

function integerOrNull(raw: unknown, column: string): number | null {
  return raw === null ? null : expectInteger(raw, column);
}

function tagsFromText(raw: unknown, column: string): readonly string[] {
  const text = expectString(raw, column);
  // The common case, no tags, skips the JSON parser.
  if (text === '[]') return [];
  return expectStrings(JSON.parse(text), column);
}

/** SQLite keeps booleans as 0/1 and lists as JSON text; every other type as it is. */
export const SQLITE_CODEC: EngineCodec = {
  encode: {
    text: (value) => value,
    textOrNull: (value) => value,
    bool: (value) => (value ? 1 : 0),
    int: (value) => value,
    micros: (value) => value,
    microsOrNull: (value) => value,
    textList: (value) => JSON.stringify(value),
  },
  decode: {
    text: expectString,
    textOrNull: expectStringOrNull,
    bool: (raw, column) => expectInteger(raw, column) === 1,
    int: expectInteger,
    micros: expectInteger,
    microsOrNull: integerOrNull,
    textList: tagsFromText,
  },
};
