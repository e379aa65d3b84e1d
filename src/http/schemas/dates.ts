import { z } from 'zod';
import type { Micros } from '../../domain/time.js';
import { DATE_TIME_EXPECTED, parseDateTime } from '../wire/dates.js';
import { WireError } from '../wire/errors.js';

/** Longest date-time text read: the longest form the wire accepts has 32 characters. */
const DATE_TEXT_MAX = 64;

/**
 * A date-time field in a body schema: anything, read by readDateField, so that a wrong type gets
 * the same message naming the expected format as a wrong text.
 */
export const dateField = z.unknown().optional();

/**
 * A date-time field of a body: absent stays absent, null clears, text must parse (else E004). A
 * stored instant is whole microseconds in a JS number, exact only as a safe integer: from
 * 1684-07-28 to 2255-06-05 (UTC). The wire reads years 1-9999, so a date outside that span is
 * refused here rather than stored inexactly (SQLite) or not at all (PostgreSQL).
 */
export function readDateField(text: unknown, field: string, zone: string): Micros | null | undefined {
  if (text === undefined || text === null) return text;
  if (typeof text !== 'string' || text.length > DATE_TEXT_MAX)
    throw WireError.invalidParameter(field, DATE_TIME_EXPECTED);
  const value = parseDateTime(text, zone);
  if (value === undefined) throw WireError.invalidParameter(field, DATE_TIME_EXPECTED);
  if (!Number.isSafeInteger(value)) throw WireError.invalidParameter(field, 'outside 1684-07-28 to 2255-06-05');
  return value;
}
