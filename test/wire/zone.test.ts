import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  instantOfWallClock,
  isValidTimeZone,
  offsetMinutesAt,
  startOfDay,
  wallClockOf,
  type WallClock,
} from '../../src/domain/zone.js';

/** Microseconds of a UTC date and time (month 1-12). */
function utc(year: number, month: number, day: number, hour = 0, minute = 0, second = 0): number {
  return Date.UTC(year, month - 1, day, hour, minute, second) * 1000;
}

function clock(year: number, month: number, day: number, hour = 0, minute = 0, second = 0): WallClock {
  return { year, month, day, hour, minute, second };
}

describe('isValidTimeZone', () => {
  it('accepts IANA names, UTC and links spelled as IANA spells them', () => {
    for (const zone of [
      'UTC',
      'Asia/Shanghai',
      'Europe/Berlin',
      'America/St_Johns',
      'Asia/Kolkata',
      'Etc/UTC',
      'America/Argentina/Buenos_Aires',
      'America/Port-au-Prince',
      'Etc/GMT+5',
    ]) {
      expect(isValidTimeZone(zone), zone).toBe(true);
    }
  });

  it('refuses other spellings, unknown names and offsets', () => {
    for (const zone of [
      'utc',
      'Utc',
      'asia/shanghai',
      'Asia/shanghai',
      'ASIA/SHANGHAI',
      'Europe/berlin',
      'Mars/Olympus',
      '',
      ' UTC',
      '+08:00',
      'GMT+8',
      'Asia/Shanghai/',
    ]) {
      expect(isValidTimeZone(zone), zone).toBe(false);
    }
  });

  it('makes the other functions throw a RangeError for a refused name', () => {
    expect(() => offsetMinutesAt(0, 'asia/shanghai')).toThrow(RangeError);
    expect(() => wallClockOf(0, 'Nowhere/Special')).toThrow(RangeError);
  });
});

describe('offsetMinutesAt', () => {
  it('is zero for UTC', () => {
    expect(offsetMinutesAt(utc(2026, 7, 1), 'UTC')).toBe(0);
  });

  it('follows daylight saving time in winter and summer', () => {
    expect(offsetMinutesAt(utc(2026, 1, 15), 'Europe/Berlin')).toBe(60);
    expect(offsetMinutesAt(utc(2026, 7, 15), 'Europe/Berlin')).toBe(120);
    expect(offsetMinutesAt(utc(2026, 1, 15), 'America/New_York')).toBe(-300);
    expect(offsetMinutesAt(utc(2026, 7, 15), 'America/New_York')).toBe(-240);
    expect(offsetMinutesAt(utc(2026, 1, 15), 'America/St_Johns')).toBe(-210);
    expect(offsetMinutesAt(utc(2026, 1, 15), 'Asia/Kolkata')).toBe(330);
    expect(offsetMinutesAt(utc(2026, 7, 15), 'Asia/Kolkata')).toBe(330);
  });

  it('changes on the exact second of a transition', () => {
    // Berlin springs forward at 01:00 UTC on 2026-03-29.
    expect(offsetMinutesAt(utc(2026, 3, 29, 1) - 1, 'Europe/Berlin')).toBe(60);
    expect(offsetMinutesAt(utc(2026, 3, 29, 1), 'Europe/Berlin')).toBe(120);
    // Kolkata's historical changes (local mean time and the like) fall at odd seconds of UTC,
    // not on the quarter hours the cache is keyed by: each side of each change must be right.
    const changes = intlChanges('Asia/Kolkata', utc(1850, 1, 1), utc(1950, 1, 1));
    expect(changes.length).toBeGreaterThan(2);
    for (const change of changes) {
      expect(offsetMinutesAt(change - 1_000_000, 'Asia/Kolkata')).toBe(
        intlOffsetMinutes(change - 1_000_000, 'Asia/Kolkata'),
      );
      expect(offsetMinutesAt(change, 'Asia/Kolkata')).toBe(intlOffsetMinutes(change, 'Asia/Kolkata'));
    }
  });

  it('stays right after its cache of quarter hours has been filled and emptied', () => {
    const quarterHour = 15 * 60 * 1_000_000;
    const start = utc(2020, 1, 1);
    for (let index = 0; index < 6000; index++) {
      const us = start + index * 7 * quarterHour;
      expect(offsetMinutesAt(us, 'Europe/Berlin')).toBe(intlOffsetMinutes(us, 'Europe/Berlin'));
    }
    expect(offsetMinutesAt(start, 'Europe/Berlin')).toBe(60);
  });

  it('rounds offsets with seconds (local mean time) to the nearest minute', () => {
    // Asia/Kolkata in 1811: +05:53:28.
    expect(offsetMinutesAt(utc(1811, 7, 23), 'Asia/Kolkata')).toBe(353);
    // America/New_York in 1874: -04:56:02.
    expect(offsetMinutesAt(utc(1874, 12, 7), 'America/New_York')).toBe(-296);
  });

  it('agrees with Intl at random instants of 1900-2100 in several zones', () => {
    const zones = [
      'Europe/Berlin',
      'America/New_York',
      'Asia/Kolkata',
      'America/St_Johns',
      'Australia/Lord_Howe',
      'Pacific/Chatham',
      'America/Sao_Paulo',
      'Asia/Kathmandu',
    ];
    fc.assert(
      fc.property(
        fc.integer({ min: utc(1900, 1, 1) / 1000, max: utc(2100, 1, 1) / 1000 }),
        fc.constantFrom(...zones),
        (millis, zone) => {
          const us = millis * 1000;
          const offsetSeconds = intlOffsetSeconds(us, zone);
          expect(offsetMinutesAt(us, zone)).toBe(intlOffsetMinutes(us, zone));
          // Offsets with seconds (Kolkata before 1941: +05:21:10) are rounded, so the clocks differ there.
          if (offsetSeconds % 60 === 0) expect(wallClockOf(us, zone)).toEqual(intlWallClock(us, zone));
        },
      ),
      { numRuns: 2000 },
    );
  });
});

/** The offset in seconds by Intl's own wall clock, independent of the module's cache and parsing. */
function intlOffsetSeconds(us: number, zone: string): number {
  const wall = intlWallClock(us, zone);
  const wallMillis = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
  return (wallMillis - Math.floor(us / 1_000_000) * 1000) / 1000;
}

function intlOffsetMinutes(us: number, zone: string): number {
  const seconds = intlOffsetSeconds(us, zone);
  return Math.sign(seconds) * Math.round(Math.abs(seconds) / 60);
}

/** The instants (whole seconds) at which Intl's offset for the zone changes, found day by day. */
function intlChanges(zone: string, fromUs: number, toUs: number): number[] {
  const day = 86_400_000_000;
  const changes: number[] = [];
  for (let start = fromUs; start < toUs; start += day) {
    if (intlOffsetSeconds(start, zone) === intlOffsetSeconds(start + day, zone)) continue;
    let before = start / 1e6;
    let after = (start + day) / 1e6;
    while (after - before > 1) {
      const middle = Math.floor((before + after) / 2);
      if (intlOffsetSeconds(middle * 1e6, zone) === intlOffsetSeconds(start, zone)) before = middle;
      else after = middle;
    }
    changes.push(after * 1e6);
  }
  return changes;
}

const intlFormats = new Map<string, Intl.DateTimeFormat>();

function intlWallClock(us: number, zone: string): WallClock {
  let format = intlFormats.get(zone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    intlFormats.set(zone, format);
  }
  const parts = format.formatToParts(Math.floor(us / 1000));
  const field = (type: Intl.DateTimeFormatPartTypes): number => Number(parts.find((part) => part.type === type)?.value);
  return clock(field('year'), field('month'), field('day'), field('hour'), field('minute'), field('second'));
}

describe('wallClockOf', () => {
  it('shows the local date and time, fractions dropped toward the past', () => {
    expect(wallClockOf(utc(2026, 11, 21, 1, 30) + 999_999, 'Asia/Shanghai')).toEqual(clock(2026, 11, 21, 9, 30, 0));
    expect(wallClockOf(-1, 'UTC')).toEqual(clock(1969, 12, 31, 23, 59, 59));
    expect(wallClockOf(utc(2026, 1, 1, 2), 'America/New_York')).toEqual(clock(2025, 12, 31, 21, 0, 0));
  });

  it('handles leap days and the ends of the year range', () => {
    expect(wallClockOf(utc(2024, 2, 29, 12), 'UTC')).toEqual(clock(2024, 2, 29, 12));
    expect(wallClockOf(utc(2000, 2, 29), 'UTC')).toEqual(clock(2000, 2, 29));
    expect(wallClockOf(instantOfWallClock(clock(1, 1, 1), 'UTC'), 'UTC')).toEqual(clock(1, 1, 1));
    expect(wallClockOf(instantOfWallClock(clock(9999, 12, 31, 23, 59, 59), 'UTC'), 'UTC')).toEqual(
      clock(9999, 12, 31, 23, 59, 59),
    );
  });
});

describe('instantOfWallClock', () => {
  it('is the inverse of wallClockOf for ordinary times', () => {
    expect(instantOfWallClock(clock(2026, 11, 21, 9, 30), 'Asia/Shanghai')).toBe(utc(2026, 11, 21, 1, 30));
    expect(instantOfWallClock(clock(2026, 7, 4, 12), 'America/New_York')).toBe(utc(2026, 7, 4, 16));
    expect(instantOfWallClock(clock(2026, 1, 4, 12), 'America/New_York')).toBe(utc(2026, 1, 4, 17));
    expect(instantOfWallClock(clock(99, 6, 1, 12), 'UTC')).toBe(Date.parse('0099-06-01T12:00:00Z') * 1000);
  });

  it('moves a time in a spring-forward gap forward by the gap', () => {
    // Berlin: 02:00 CET becomes 03:00 CEST on 2026-03-29, so 02:30 is 03:30 CEST.
    expect(instantOfWallClock(clock(2026, 3, 29, 2, 30), 'Europe/Berlin')).toBe(utc(2026, 3, 29, 1, 30));
    expect(wallClockOf(utc(2026, 3, 29, 1, 30), 'Europe/Berlin')).toEqual(clock(2026, 3, 29, 3, 30));
    // New York: 02:00 EST becomes 03:00 EDT on 2026-03-08.
    expect(instantOfWallClock(clock(2026, 3, 8, 2, 30), 'America/New_York')).toBe(utc(2026, 3, 8, 7, 30));
    // Samoa skipped all of 2011-12-30: noon that day is noon on the 31st (+14:00).
    expect(instantOfWallClock(clock(2011, 12, 30, 12), 'Pacific/Apia')).toBe(utc(2011, 12, 30, 22));
  });

  it('takes the first occurrence of a time repeated in autumn', () => {
    // Berlin repeats 02:00-03:00 on 2026-10-25: first in CEST (00:30 UTC), then in CET.
    expect(instantOfWallClock(clock(2026, 10, 25, 2, 30), 'Europe/Berlin')).toBe(utc(2026, 10, 25, 0, 30));
    // New York repeats 01:00-02:00 on 2026-11-01: first in EDT (05:30 UTC).
    expect(instantOfWallClock(clock(2026, 11, 1, 1, 30), 'America/New_York')).toBe(utc(2026, 11, 1, 5, 30));
    // Just outside the repeated hour the answer is unique.
    expect(instantOfWallClock(clock(2026, 10, 25, 3, 0), 'Europe/Berlin')).toBe(utc(2026, 10, 25, 2, 0));
    expect(instantOfWallClock(clock(2026, 10, 25, 1, 59, 59), 'Europe/Berlin')).toBe(utc(2026, 10, 24, 23, 59, 59));
  });

  it('round-trips every instant except the second pass of a repeated hour', () => {
    const zones = ['Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Australia/Lord_Howe', 'Pacific/Apia'];
    fc.assert(
      fc.property(
        fc.integer({ min: utc(1970, 1, 1) / 1e6, max: utc(2060, 1, 1) / 1e6 }),
        fc.constantFrom(...zones),
        (seconds, zone) => {
          const us = seconds * 1e6;
          const back = instantOfWallClock(wallClockOf(us, zone), zone);
          if (back !== us) {
            // Only allowed when the same wall clock occurred earlier: a repeated time.
            expect(back).toBeLessThan(us);
            expect(wallClockOf(back, zone)).toEqual(wallClockOf(us, zone));
          }
        },
      ),
      { numRuns: 3000 },
    );
  });
});

describe('startOfDay', () => {
  it('is local midnight of the instant’s date', () => {
    expect(startOfDay(utc(2026, 7, 15, 12), 'Europe/Berlin')).toBe(utc(2026, 7, 14, 22));
    expect(startOfDay(utc(2026, 7, 15, 23), 'Europe/Berlin')).toBe(utc(2026, 7, 15, 22));
    expect(startOfDay(utc(2026, 11, 21, 1, 30), 'Asia/Shanghai')).toBe(utc(2026, 11, 20, 16));
    expect(startOfDay(utc(2026, 11, 21, 1, 30), 'UTC')).toBe(utc(2026, 11, 21));
    expect(startOfDay(utc(2026, 3, 29, 12), 'Europe/Berlin')).toBe(utc(2026, 3, 28, 23));
  });

  it('is the first instant of the day when midnight was skipped', () => {
    // São Paulo sprang forward at midnight on 2018-11-04: the day began at 01:00 (-02:00).
    expect(startOfDay(utc(2018, 11, 4, 15), 'America/Sao_Paulo')).toBe(utc(2018, 11, 4, 3));
  });
});
