/** The app's calendar arithmetic in the account's zone (wire dates are the SDK's, test/client). */
import { describe, expect, it } from 'vitest';
import { formatWireDate } from '../../../src/client/index.js';
import { addDays, dayOf, instantOf, startOfDay } from '../../../web/src/dates.ts';

describe('calendar days in a zone', () => {
  it('finds a wall-clock time in a zone, DST included', () => {
    const berlin = (instant: number): string => formatWireDate(new Date(instant), 'Europe/Berlin');
    expect(berlin(instantOf(2026, 3, 29, 0, 0, 'Europe/Berlin'))).toBe('2026-03-29 00:00:00 +0100');
    expect(berlin(instantOf(2026, 3, 30, 0, 0, 'Europe/Berlin'))).toBe('2026-03-30 00:00:00 +0200');
    expect(berlin(startOfDay('2026-07-01', 'Europe/Berlin'))).toBe('2026-07-01 00:00:00 +0200');
    expect(dayOf(Date.UTC(2026, 10, 21, 23, 30), 'Asia/Tokyo')).toBe('2026-11-22');
  });

  it('counts calendar days', () => {
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(addDays('2028-02-28', 1)).toBe('2028-02-29');
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28');
  });
});
