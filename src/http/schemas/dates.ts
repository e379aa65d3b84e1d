import type { Micros } from '../../domain/time.js';
import { parseDateTime } from '../wire/dates.js';
import { WireError } from '../wire/errors.js';

/** A date-time field of a body: absent stays absent, null clears, text must parse (else E004). */
export function readDateField(text: string | null | undefined, field: string, zone: string): Micros | null | undefined {
  if (text === undefined || text === null) return text;
  const value = parseDateTime(text, zone);
  if (value === undefined) throw WireError.invalidParameter(field, 'not a date-time');
  return value;
}
