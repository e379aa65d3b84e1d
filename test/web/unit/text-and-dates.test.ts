import { describe, expect, it } from 'vitest';
import { addDays, formatWireDate, instantOf, isDay, parseWireDate } from '../../../web/src/dates.ts';
import { unescapeText } from '../../../web/src/text.ts';

describe('text from the wire', () => {
  it('unescapes the five entities once', () => {
    expect(unescapeText('&lt;img src=x onerror=alert(1)&gt; &amp; &quot;quotes&quot; &#39;s')).toBe(
      `<img src=x onerror=alert(1)> & "quotes" 's`,
    );
    expect(unescapeText('&amp;lt; &amp;amp; &nbsp; &#60;')).toBe('&lt; &amp; &nbsp; &#60;');
  });
});

describe('wire dates', () => {
  it('reads and writes `YYYY-MM-DD HH:MM:SS +hhmm` in a zone, DST included', () => {
    const instant = parseWireDate('2026-11-21 09:30:00 +0800');
    expect(instant).toBe(Date.UTC(2026, 10, 21, 1, 30));
    expect(formatWireDate(instant, 'Asia/Shanghai')).toBe('2026-11-21 09:30:00 +0800');
    expect(formatWireDate(instant, 'America/St_Johns')).toBe('2026-11-20 22:00:00 -0330');
    expect(formatWireDate(Date.UTC(2026, 6, 1, 12), 'Europe/Berlin')).toBe('2026-07-01 14:00:00 +0200');
  });

  it('finds a wall-clock time in a zone, and calendar days', () => {
    expect(formatWireDate(instantOf(2026, 3, 29, 0, 0, 'Europe/Berlin'), 'Europe/Berlin')).toBe(
      '2026-03-29 00:00:00 +0100',
    );
    expect(formatWireDate(instantOf(2026, 3, 30, 0, 0, 'Europe/Berlin'), 'Europe/Berlin')).toBe(
      '2026-03-30 00:00:00 +0200',
    );
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(isDay('2026-02-29')).toBe(false);
    expect(isDay('2028-02-29')).toBe(true);
  });
});
