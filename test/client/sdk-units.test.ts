/**
 * The SDK's pure parts: unescaping, the contract's dates in and out, the date fields it parses
 * (checked against the answer shapes the server is held to, /v1's and /account's), and Retry-After.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { calendarDateIn, formatWireDate, parseWireDate, unescapeHtml } from '../../src/client/index.js';
import { ACCOUNT_DATE_FIELDS } from '../../src/client/account.js';
import { DATE_FIELDS } from '../../src/client/records.js';
import { retryAfterMs } from '../../src/client/transport.js';
import { wireContext, wireDateTime, wireProject, wireSettings, wireTask } from '../../src/http/wire/shapes.js';
import { connectedApp, personalToken } from '../../src/http/wire/account-shapes.js';
import { escapeHtml } from '../../src/http/wire/escape.js';

/** Whether the field is a wire date-time: `.meta()` makes a copy of it, with the same definition. */
function isDateTime(field: z.core.$ZodType): boolean {
  return field._zod.def === wireDateTime._zod.def;
}

/** The fields of an answer shape that are date-times, nullable or not. */
function dateFieldsOf(shape: z.ZodObject): string[] {
  return Object.entries(shape.shape)
    .filter(([, field]) => isDateTime(field) || (field instanceof z.ZodNullable && isDateTime(field.unwrap())))
    .map(([name]) => name);
}

describe('the SDK units', () => {
  it('parses exactly the date-time fields of each answer shape', () => {
    expect([...DATE_FIELDS.task].sort()).toEqual(dateFieldsOf(wireTask).sort());
    expect([...DATE_FIELDS.project].sort()).toEqual(dateFieldsOf(wireProject).sort());
    expect([...DATE_FIELDS.context].sort()).toEqual(dateFieldsOf(wireContext).sort());
    expect([...DATE_FIELDS.settings].sort()).toEqual(dateFieldsOf(wireSettings).sort());
    expect([...ACCOUNT_DATE_FIELDS.token].sort()).toEqual(dateFieldsOf(personalToken).sort());
    expect([...ACCOUNT_DATE_FIELDS.app].sort()).toEqual(dateFieldsOf(connectedApp).sort());
  });

  it('undoes the server escaping of any text exactly once', () => {
    for (const text of [
      `<a href="x">Tom & 'Jerry'</a>`,
      '&amp;lt; stays &lt;',
      'plain',
      '&copy; &#40; untouched',
      '',
    ]) {
      expect(unescapeHtml(escapeHtml(text))).toBe(text);
    }
    expect(unescapeHtml('&amp;lt;')).toBe('&lt;');
  });

  it('reads and writes the contract form at any offset, DST included', () => {
    expect(parseWireDate('2026-11-21 09:30:00 +0800').toISOString()).toBe('2026-11-21T01:30:00.000Z');
    expect(parseWireDate('2026-07-01 00:00:00 -0930').toISOString()).toBe('2026-07-01T09:30:00.000Z');
    expect(parseWireDate('0001-01-01 00:00:00 +0000').getUTCFullYear()).toBe(1);
    expect(() => parseWireDate('2026-11-21T01:30:00Z')).toThrow(RangeError);
    // New York leaves summer time on 2026-11-01 at 06:00 UTC: 01:30 happens twice.
    expect(formatWireDate(new Date('2026-11-01T05:30:00Z'), 'America/New_York')).toBe('2026-11-01 01:30:00 -0400');
    expect(formatWireDate(new Date('2026-11-01T06:30:00Z'), 'America/New_York')).toBe('2026-11-01 01:30:00 -0500');
    expect(formatWireDate(new Date('2026-11-21T01:30:00.999Z'), 'Asia/Kathmandu')).toBe('2026-11-21 07:15:00 +0545');
    expect(formatWireDate(new Date('2026-11-21T01:30:00Z'))).toBe('2026-11-21 01:30:00 +0000');
    for (const zone of ['UTC', 'Europe/Berlin', 'Australia/Lord_Howe', 'America/St_Johns']) {
      const instant = new Date('2026-04-05T15:45:07Z');
      expect(parseWireDate(formatWireDate(instant, zone)).getTime()).toBe(instant.getTime());
    }
    expect(calendarDateIn(new Date('2026-11-21T23:30:00Z'), 'Asia/Tokyo')).toBe('2026-11-22');
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(retryAfterMs('1')).toBe(1000);
    expect(retryAfterMs(null)).toBeUndefined();
    expect(retryAfterMs('soon')).toBeUndefined();
    const now = Date.parse('2026-11-21T10:00:00Z');
    expect(retryAfterMs('Sat, 21 Nov 2026 10:00:05 GMT', now)).toBe(5000);
  });
});
