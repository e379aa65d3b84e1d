import ICAL from 'ical.js';
import { describe, expect, it } from 'vitest';
import { parseIcs, writeIcs } from '../../src/service/formats/ics.js';

/** A VTODO as another app writes it: a DST zone by TZID, a floating time, a property of its own. */
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
  'PRIORITY:5',
  'CATEGORIES:money,calls',
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
    const { data } = parseIcs(FOREIGN, 'Europe/Berlin');
    const [bank, floating] = data.tasks;
    // 09:30 in Berlin on the day summer time begins is 07:30 UTC (CEST, +02:00).
    expect(bank?.startAt).toBe(Date.UTC(2026, 2, 29, 7, 30) * 1000);
    expect(bank?.endAt).toBe(Date.UTC(2026, 2, 29, 8, 30) * 1000);
    expect(bank?.priority).toBe(2);
    expect(bank?.tags).toEqual(['money', 'calls']);
    expect(bank?.id).toMatch(/^ics-[A-Za-z0-9_-]{22}$/);
    // The same UID gives the same id every time: a second import finds the task.
    expect(parseIcs(FOREIGN, 'Europe/Berlin').data.tasks[0]?.id).toBe(bank?.id);
    // Floating: 08:00 in the account's zone (CET, +01:00, in January).
    expect(floating?.startAt).toBe(Date.UTC(2026, 0, 1, 7, 0) * 1000);
    expect(floating?.repeater).toBeNull();
    expect(data.unmapped).toEqual([
      'VTODO 4f1c2a9e-0c4e-4b7e-9d2e-5d1f6e7a8b9c@another.example: X-ANOTHER-APP-COLOR (no field of a task takes it)',
      'VTODO floating-1: RRULE FREQ=DAILY;BYHOUR=8,9;BYSETPOS=1 (not a rule this service repeats by, or no date to repeat from)',
      '1 components other than VTODO (events, journals) left out',
    ]);
  });

  it('keeps a foreign property through ical.js and back', () => {
    const first = parseIcs(FOREIGN, 'Europe/Berlin');
    const written = writeIcs(first.data, 'Europe/Berlin', Date.UTC(2026, 3, 1) * 1000, first.foreign);
    expect(written).toContain('X-ANOTHER-APP-COLOR:#ff8800');
    const second = parseIcs(written, 'Europe/Berlin');
    expect(second.data.tasks).toEqual(first.data.tasks);
    expect([...second.foreign.values()]).toEqual([...first.foreign.values()]);
    // And what is written is iCalendar that ical.js reads as VTODOs.
    const calendar = new ICAL.Component(ICAL.parse(written));
    expect(calendar.getAllSubcomponents('vtodo')).toHaveLength(2);
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
          },
        ],
      },
      'Europe/Berlin',
      0,
    );
    expect(text).toContain('DTSTART;VALUE=DATE:20261025\r\n');
    expect(text).toContain('X-TASK-SERVICE-PROJECT:Home\r\n');
    expect(parseIcs(text, 'Europe/Berlin').data.tasks[0]?.startAt).toBe(midnightBerlin);
  });
});
