import type { EngineCodec } from '../kinds/codec.js';
import { expectInteger, expectString, expectStringOrNull, expectStrings } from '../kinds/checks.js';
import { storableText, storableTexts } from './text.js';
import { numberFromBigint } from './values.js';

function bigint(raw: unknown, column: string): number {
  if (typeof raw !== 'string') throw new Error(`${column} holds ${typeof raw}, not a bigint`);
  return numberFromBigint(raw);
}

function bigintOrNull(raw: unknown, column: string): number | null {
  return raw === null ? null : bigint(raw, column);
}

/** PostgreSQL has booleans and text arrays of its own; `bigint` columns come back as text. */
export const POSTGRES_CODEC: EngineCodec = {
  encode: {
    text: (value, field) => storableText(field, value),
    textOrNull: (value, field) => storableText(field, value),
    bool: (value) => value,
    int: (value) => value,
    micros: (value) => value,
    microsOrNull: (value) => value,
    textList: (value, field) => storableTexts(field, value),
  },
  decode: {
    text: expectString,
    textOrNull: expectStringOrNull,
    bool: (raw, column) => {
      if (typeof raw !== 'boolean') throw new Error(`${column} holds ${String(raw)}, not a boolean`);
      return raw;
    },
    // `priority` is a smallint, which pg hands back as a number.
    int: (raw, column) => (typeof raw === 'number' ? expectInteger(raw, column) : bigint(raw, column)),
    micros: bigint,
    microsOrNull: bigintOrNull,
    textList: expectStrings,
  },
};
