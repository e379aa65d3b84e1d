import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatDateTime, parseDateTime, timezoneLabel } from '../../src/http/wire/dates.js';

/** Microseconds of a UTC date and time (month 1-12). */
function utc(year: number, month: number, day: number, hour = 0, minute = 0, second = 0): number {
  return Date.UTC(year, month - 1, day, hour, minute, second) * 1000;
}

describe('formatDateTime', () => {
  it('writes the local time with the zone’s offset', () => {
    expect(formatDateTime(utc(2026, 11, 21, 1, 30), 'Asia/Shanghai')).toBe('2026-11-21 09:30:00 +0800');
    expect(formatDateTime(utc(2026, 11, 21, 1, 30), 'UTC')).toBe('2026-11-21 01:30:00 +0000');
    expect(formatDateTime(utc(2026, 1, 15, 12), 'Asia/Kolkata')).toBe('2026-01-15 17:30:00 +0530');
    expect(formatDateTime(utc(2026, 1, 15, 12), 'America/St_Johns')).toBe('2026-01-15 08:30:00 -0330');
    expect(formatDateTime(utc(2026, 7, 15, 12), 'America/St_Johns')).toBe('2026-07-15 09:30:00 -0230');
  });

  it('follows daylight saving time in January and July', () => {
    expect(formatDateTime(utc(2026, 1, 15, 12), 'Europe/Berlin')).toBe('2026-01-15 13:00:00 +0100');
    expect(formatDateTime(utc(2026, 7, 15, 12), 'Europe/Berlin')).toBe('2026-07-15 14:00:00 +0200');
    expect(formatDateTime(utc(2026, 1, 15, 12), 'America/New_York')).toBe('2026-01-15 07:00:00 -0500');
    expect(formatDateTime(utc(2026, 7, 15, 12), 'America/New_York')).toBe('2026-07-15 08:00:00 -0400');
  });

  it('shows both passes of a repeated hour with their own offsets', () => {
    expect(formatDateTime(utc(2026, 10, 25, 0, 30), 'Europe/Berlin')).toBe('2026-10-25 02:30:00 +0200');
    expect(formatDateTime(utc(2026, 10, 25, 1, 30), 'Europe/Berlin')).toBe('2026-10-25 02:30:00 +0100');
  });

  it('cuts fractions of a second toward the past', () => {
    expect(formatDateTime(utc(2026, 11, 21, 1, 30) + 999_999, 'UTC')).toBe('2026-11-21 01:30:00 +0000');
    expect(formatDateTime(-1, 'UTC')).toBe('1969-12-31 23:59:59 +0000');
    expect(formatDateTime(-1_000_001, 'UTC')).toBe('1969-12-31 23:59:58 +0000');
  });

  it('pads years to four digits across 0001-9999', () => {
    expect(formatDateTime(Date.parse('0001-01-01T00:00:00Z') * 1000, 'UTC')).toBe('0001-01-01 00:00:00 +0000');
    expect(formatDateTime(Date.parse('0099-03-04T05:06:07Z') * 1000, 'UTC')).toBe('0099-03-04 05:06:07 +0000');
    expect(formatDateTime(Date.parse('9999-12-31T23:59:59Z') * 1000, 'UTC')).toBe('9999-12-31 23:59:59 +0000');
  });
});

describe('parseDateTime', () => {
  const instant = utc(2026, 11, 21, 1, 30);

  it('reads the output format with either sign', () => {
    expect(parseDateTime('2026-11-21 09:30:00 +0800', 'UTC')).toBe(instant);
    expect(parseDateTime('2026-11-20 22:00:00 -0330', 'UTC')).toBe(instant);
    expect(parseDateTime('2026-11-21 01:30:00 +0000', 'Asia/Shanghai')).toBe(instant);
    expect(parseDateTime('2026-11-21 01:30:00 -0000', 'UTC')).toBe(instant);
  });

  it('reads a bare offset after a space as positive: a + that arrived as a space', () => {
    expect(parseDateTime('2026-11-21 09:30:00 0800', 'UTC')).toBe(instant);
    expect(parseDateTime('2026-11-21 09:30:00  0800', 'UTC')).toBe(instant);
    expect(parseDateTime('2026-11-21 09:30:00   0800', 'UTC')).toBeUndefined();
    expect(parseDateTime('2026-11-21 09:30:00 +  0800', 'UTC')).toBeUndefined();
  });

  it('reads a date alone as its midnight in the zone', () => {
    expect(parseDateTime('2026-11-21', 'UTC')).toBe(utc(2026, 11, 21));
    expect(parseDateTime('2026-11-21', 'Asia/Shanghai')).toBe(utc(2026, 11, 20, 16));
    expect(parseDateTime('2026-07-01', 'America/New_York')).toBe(utc(2026, 7, 1, 4));
    // São Paulo skipped midnight on 2018-11-04: the date starts at 01:00 (-02:00).
    expect(parseDateTime('2018-11-04', 'America/Sao_Paulo')).toBe(utc(2018, 11, 4, 3));
  });

  it('reads RFC 3339, fractions kept to the microsecond', () => {
    expect(parseDateTime('2026-11-21T01:30:00Z', 'Asia/Shanghai')).toBe(instant);
    expect(parseDateTime('2026-11-21t01:30:00z', 'UTC')).toBe(instant);
    expect(parseDateTime('2026-11-21T09:30:00+08:00', 'UTC')).toBe(instant);
    expect(parseDateTime('2026-11-20T22:00:00-03:30', 'UTC')).toBe(instant);
    expect(parseDateTime('2026-11-21T09:30:00.123456+08:00', 'UTC')).toBe(instant + 123_456);
    expect(parseDateTime('2026-11-21T01:30:00.1Z', 'UTC')).toBe(instant + 100_000);
    expect(parseDateTime('2026-11-21T01:30:00.000001Z', 'UTC')).toBe(instant + 1);
    expect(parseDateTime('2026-11-21T01:30:00.1234569999999Z', 'UTC')).toBe(instant + 123_456);
  });

  it('refuses impossible dates and times instead of rolling them over', () => {
    for (const text of [
      '2026-02-30',
      '2025-02-29',
      '2100-02-29',
      '2026-13-01',
      '2026-00-10',
      '2026-04-31',
      '2026-11-00',
      '0000-01-01',
      '2026-11-21 24:00:00 +0000',
      '2026-11-21 23:60:00 +0000',
      '2026-11-21 23:59:60 +0000',
      '2026-11-21 09:30:00 +2400',
      '2026-11-21 09:30:00 +0860',
      '2026-11-21T09:30:00+08:60',
      '2026-11-21T24:00:00Z',
      '2026-02-30T00:00:00Z',
    ]) {
      expect(parseDateTime(text, 'UTC'), text).toBeUndefined();
    }
    expect(parseDateTime('2024-02-29', 'UTC')).toBe(utc(2024, 2, 29));
    expect(parseDateTime('2000-02-29', 'UTC')).toBe(utc(2000, 2, 29));
  });

  it('refuses everything else', () => {
    for (const text of [
      '',
      'yesterday',
      '2026-11-21 09:30:00',
      '2026-11-21 09:30',
      '2026-11-21T01:30:00',
      '2026-11-21T01:30:00+0800',
      '2026-11-21 09:30:00 +08:00',
      '2026-11-21 09:30:00 +0800 ',
      ' 2026-11-21',
      '2026-11-21 ',
      '2026-1-21',
      '26-11-21',
      '2026/11/21',
      '２０２６-11-21',
      '2026-11-21T01:30:00.Z',
      '2026-11-21T01:30:00.123',
      '2026-11-21T01:30:00ZZ',
      '2026-11-21 09:30:00.5 +0800',
      '2026-11-21X09:30:00 +0800',
      '2026-11-21 09:30:00 +080',
      '2026-11-21 09:30:00 +08000',
      '+2026-11-21',
      '1.7e15',
    ]) {
      expect(parseDateTime(text, 'UTC'), text).toBeUndefined();
    }
  });

  it('reads back whatever formatDateTime wrote, to the second', () => {
    const zones = ['UTC', 'Europe/Berlin', 'America/New_York', 'America/St_Johns', 'Asia/Kolkata', 'Pacific/Chatham'];
    fc.assert(
      fc.property(
        fc.integer({ min: -62_000_000_000, max: 253_000_000_000 }),
        fc.constantFrom(...zones),
        (seconds, zone) => {
          expect(parseDateTime(formatDateTime(seconds * 1e6, zone), 'UTC')).toBe(seconds * 1e6);
        },
      ),
      { numRuns: 3000 },
    );
  });
});

describe('timezoneLabel', () => {
  it('shows the offset now before the zone', () => {
    expect(timezoneLabel('Asia/Shanghai', utc(2026, 1, 1))).toBe('(GMT+08:00) Asia/Shanghai');
    expect(timezoneLabel('UTC', utc(2026, 1, 1))).toBe('(GMT+00:00) UTC');
    expect(timezoneLabel('America/St_Johns', utc(2026, 1, 1))).toBe('(GMT-03:30) America/St_Johns');
    expect(timezoneLabel('Asia/Kathmandu', utc(2026, 1, 1))).toBe('(GMT+05:45) Asia/Kathmandu');
  });

  it('changes with daylight saving time', () => {
    expect(timezoneLabel('Europe/Berlin', utc(2026, 1, 15))).toBe('(GMT+01:00) Europe/Berlin');
    expect(timezoneLabel('Europe/Berlin', utc(2026, 7, 15))).toBe('(GMT+02:00) Europe/Berlin');
  });
});
