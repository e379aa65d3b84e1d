import type { Micros } from '../../domain/time.js';
import { parseDateTime } from '../wire/dates.js';
import { WireError } from '../wire/errors.js';

/**
 * A date-time field of a body: absent stays absent, null clears, text must parse (else E004). A
 * stored instant is whole microseconds in a JS number, exact only as a safe integer: from
 * 1684-07-28 to 2255-06-05 (UTC). The wire reads years 1-9999, so a date outside that span is
 * refused here rather than stored inexactly (SQLite) or not at all (PostgreSQL).
 */
export function readDateField(text: string | null | undefined, field: string, zone: string): Micros | null | undefined {
  if (text === undefined || text === null) return text;
  const value = parseDateTime(text, zone);
  if (value === undefined) throw WireError.invalidParameter(field, 'not a date-time');
  if (!Number.isSafeInteger(value)) throw WireError.invalidParameter(field, 'outside 1684-07-28 to 2255-06-05');
  return value;
}
