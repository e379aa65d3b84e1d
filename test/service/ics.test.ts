import ICAL from 'ical.js';
import { describe, expect, it } from 'vitest';
import { NEW_PORTABLE_TASK, type PortableTask } from '../../src/domain/portable.js';
import { TASK_LIMITS } from '../../src/domain/task.js';
import { readIcs, writeIcs } from '../../src/service/formats/ics.js';

/**
 * A VTODO as another app writes it: a DST zone by TZID, a floating time, properties of its own
 * (one folded over two lines), GEO, an alarm.
 */
const FOREIGN = [
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//Another App//EN',
  'BEGIN:VTODO',
  'UID:4f1c2a9e-0c4e-4b7e-9d2e-5d1f6e7a8b9c@another.example',
  'DTSTAMP:20260301T120000Z',
  'SUMMARY:Call the bank',
  'DTSTART;TZID=Europe/Berlin:20260329T093000',
  'DUE;TZID=Europe/Berlin:20260329T103000',
  'X-ANOTHER-APP-COLOR:#ff8800',
  'GEO:37.386013;-122.082932',
  'LOCATION;LANGUAGE=de:Bank\\, Schalter 3',
  'X-ANOTHER-APP-NOTE;X-KIND="a, b":a long value folded',
  '  over two lines',
  'PRIORITY:5',
  'CATEGORIES:money,calls',
  'BEGIN:VALARM',
  'ACTION:DISPLAY',
  'TRIGGER:-PT15M',
  'DESCRIPTION:Call the bank',
  'END:VALARM',
  'END:VTODO',
  'BEGIN:VTODO',
  'UID:floating-1',
  'DTSTAMP:20260301T120000Z',
  'SUMMARY:Floating',
  'DTSTART:20260101T080000',
  'RRULE:FREQ=DAILY;BYHOUR=8,9;BYSETPOS=1',
  'END:VTODO',
  'BEGIN:VEVENT',
  'UID:event-1',
  'DTSTAMP:20260301T120000Z',
  'DTSTART:20260101T080000Z',
  'SUMMARY:An event',
  'END:VEVENT',
  'END:VCALENDAR',
  '',
].join('\r\n');

describe('iCalendar VTODO', () => {
  it('reads TZID times in their zone across DST, floating ones in the account zone, and lists what it cannot map', () => {
    const data = readIcs(FOREIGN, 'Europe/Berlin');
    const [bank, floating] = data.tasks;
    // 09:30 in Berlin on the day summer time begins is 07:30 UTC (CEST, +02:00).
    expect(bank?.startAt).toBe(Date.UTC(2026, 2, 29, 7, 30) * 1000);
    expect(bank?.endAt).toBe(Date.UTC(2026, 2, 29, 8, 30) * 1000);
    expect(bank?.priority).toBe(2);
    expect(bank?.tags).toEqual(['money', 'calls']);
    expect(bank?.id).toMatch(/^ics-[A-Za-z0-9_-]{22}$/);
    // The same UID gives the same id every time: a second import finds the task.
    expect(readIcs(FOREIGN, 'Europe/Berlin').tasks[0]?.id).toBe(bank?.id);
    // Floating: 08:00 in the account's zone (CET, +01:00, in January).
    expect(floating?.startAt).toBe(Date.UTC(2026, 0, 1, 7, 0) * 1000);
    expect(floating?.repeater).toBeNull();
    expect(data.unmapped).toEqual([
      'VTODO 4f1c2a9e-0c4e-4b7e-9d2e-5d1f6e7a8b9c@another.example: VALARM left out (components inside a VTODO are not kept)',
      'VTODO floating-1: RRULE FREQ=DAILY;BYHOUR=8,9;BYSETPOS=1 (not a rule this service repeats by, or no date to repeat from)',
      '1 components other than VTODO (events, journals) left out',
    ]);
  });

  it('keeps the properties no field takes on the task, as their content lines in order', () => {
    const [bank, floating] = readIcs(FOREIGN, 'Europe/Berlin').tasks;
    expect(bank?.icalExtras).toBe(
      'X-ANOTHER-APP-COLOR:#ff8800\r\n' +
        'GEO:37.386013;-122.082932\r\n' +
        'LOCATION;LANGUAGE=de:Bank\\, Schalter 3\r\n' +
        'X-ANOTHER-APP-NOTE;X-KIND="a, b":a long value folded over two lines\r\n',
    );
    expect(floating?.icalExtras).toBe('');
  });

  it('keeps foreign properties through ical.js and back', () => {
    const first = readIcs(FOREIGN, 'Europe/Berlin');
    const written = writeIcs(first, 'Europe/Berlin', Date.UTC(2026, 3, 1) * 1000);
    expect(written).toContain('\r\nX-ANOTHER-APP-COLOR:#ff8800\r\n');
    expect(written).toContain('\r\nGEO:37.386013;-122.082932\r\n');
    const second = readIcs(written, 'Europe/Berlin');
    expect(second.tasks).toEqual(first.tasks);
    // And what is written is iCalendar that ical.js reads as VTODOs.
    const calendar = new ICAL.Component(ICAL.parse(written));
    expect(calendar.getAllSubcomponents('vtodo')).toHaveLength(2);
    const geo: unknown = calendar.getFirstSubcomponent('vtodo')?.getFirstPropertyValue('geo');
    expect(geo).toEqual([37.386013, -122.082932]);
  });

  it('keeps properties while they fit the bound of a task, and lists each one that does not', () => {
    const big = (name: string, length: number) => `${name}:${'x'.repeat(length - name.length - 1)}`;
    // Each line with its CRLF is a third of the bound, less a little: three fit, a fourth does not.
    const third = Math.floor(TASK_LIMITS.icalExtrasMax / 3) - 10;
    const file = [
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      'BEGIN:VTODO',
      'UID:big',
      'SUMMARY:Big',
      big('X-ONE', third),
      big('X-TWO', third),
      big('X-THREE', TASK_LIMITS.icalExtrasMax),
      big('X-FOUR', third),
      'X-SMALL:still kept',
      'END:VTODO',
      'END:VCALENDAR',
      '',
    ].join('\r\n');
    const data = readIcs(file, 'UTC');
    const extras = data.tasks[0]?.icalExtras ?? '';
    expect(extras.length).toBeLessThanOrEqual(TASK_LIMITS.icalExtrasMax);
    expect(extras.split('\r\n').map((line) => line.split(':')[0])).toEqual(['X-ONE', 'X-TWO', 'X-FOUR', 'X-SMALL', '']);
    expect(data.unmapped).toEqual([
      `VTODO big: X-THREE not kept (a task keeps at most ${TASK_LIMITS.icalExtrasMax} characters of them)`,
    ]);
  });

  it('writes an all-day task as VALUE=DATE in the account zone, a timed one in UTC', () => {
    const midnightBerlin = Date.UTC(2026, 9, 24, 22, 0) * 1000;
    const text = writeIcs(
      {
        projects: [],
        contexts: [],
        unmapped: [],
        tasks: [
          {
            ...NEW_PORTABLE_TASK,
            id: 'a',
            title: 'All day',
            notes: '',
            attribute: 'plan',
            allDay: true,
            startAt: midnightBerlin,
            endAt: null,
            completed: null,
            trashed: null,
            project: { name: 'Home' },
            context: null,
            tags: [],
            priority: 0,
            repeater: null,
            icalExtras: 'X-KEPT;X-P=1:kept\r\n',
          } satisfies PortableTask,
        ],
      },
      'Europe/Berlin',
      0,
    );
    expect(text).toContain('DTSTART;VALUE=DATE:20261025\r\n');
    expect(text).toContain('X-TASK-SERVICE-PROJECT:Home\r\n');
    expect(text).toContain('\r\nX-KEPT;X-P=1:kept\r\n');
    expect(readIcs(text, 'Europe/Berlin').tasks[0]?.startAt).toBe(midnightBerlin);
  });
});
