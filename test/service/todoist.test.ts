import { describe, expect, it } from 'vitest';
import { isValidRepeater } from '../../src/domain/repeat.js';
import { readTodoistBackup } from '../../src/service/formats/todoist.js';
import { recurrenceOf } from '../../src/service/formats/todoist-recurrence.js';
import { makeZip } from '../support/zip.js';
import { todoistBackup } from '../support/todoist-backup.js';

describe("Todoist's backup", () => {
  it.each([
    ['every day', 'FREQ=DAILY'],
    ['daily', 'FREQ=DAILY'],
    ['every 3 days', 'FREQ=DAILY;INTERVAL=3'],
    ['every week', 'FREQ=WEEKLY'],
    ['every 2 weeks', 'FREQ=WEEKLY;INTERVAL=2'],
    ['every other week', 'FREQ=WEEKLY;INTERVAL=2'],
    ['every month', 'FREQ=MONTHLY'],
    ['every 6 months', 'FREQ=MONTHLY;INTERVAL=6'],
    ['every year', 'FREQ=YEARLY'],
    ['annually', 'FREQ=YEARLY'],
    ['every monday', 'FREQ=WEEKLY;BYDAY=MO'],
    ['Every Mon, Fri', 'FREQ=WEEKLY;BYDAY=MO,FR'],
    ['every tuesday and thursday', 'FREQ=WEEKLY;BYDAY=TU,TH'],
    ['every weekday', 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR'],
    ['every weekend', 'FREQ=WEEKLY;BYDAY=SA,SU'],
    ['every! 2 weeks', 'FREQ=WEEKLY;INTERVAL=2'],
  ])('reads "%s" as %s, a rule the service repeats by', (phrase, rule) => {
    expect(recurrenceOf(phrase)?.rule).toBe(rule);
    expect(isValidRepeater(rule)).toBe(true);
  });

  it.each(['every monday at 9am', 'every 0 days', 'every blue moon', 'tomorrow', 'jeden Tag'])(
    'does not guess at "%s"',
    (phrase) => {
      expect(recurrenceOf(phrase)).toBeUndefined();
    },
  );

  it('reads tasks, labels, priorities, notes and dates, and lists what it cannot map', () => {
    const data = readTodoistBackup(todoistBackup(), 'Europe/Berlin');
    const titles = data.tasks.map((task) => task.title);
    expect(titles).toEqual([
      'Water the plants',
      'Sub step',
      'Pay rent, on time',
      'Dentist',
      'Someday',
      'Jeden Tag',
      'Buy milk',
    ]);
    const [water, , rent, dentist, , , milk] = data.tasks;
    expect(water?.tags).toEqual(['garden', 'daily']);
    expect(water?.notes).toBe('Both balconies\n\nUse the rain barrel, not the tap');
    expect(water?.priority).toBe(3);
    expect(water?.repeater).toBe('FREQ=WEEKLY;BYDAY=MO');
    // The first Monday on or after the day of the backup (Wednesday 25 November), all day in Berlin.
    expect(water?.startAt).toBe(Date.UTC(2026, 10, 29, 23, 0) * 1000);
    expect(water?.allDay).toBe(true);
    expect(water?.project).toEqual({ name: 'Home' });
    expect(rent?.startAt).toBe(Date.UTC(2026, 10, 24, 23, 0) * 1000);
    expect(dentist?.startAt).toBe(Date.UTC(2026, 11, 3, 8, 30) * 1000);
    expect(dentist?.allDay).toBe(false);
    expect(milk?.project).toBeNull();
    expect(milk?.attribute).toBe('inbox');
    expect(data.unmapped).toEqual([
      'Home: section "Garden" (its tasks imported without it)',
      'Home: "Someday": date "next spring" (not a date or recurring phrase this import understands): imported without a date',
      'Home: "Jeden Tag": date "jeden Tag" (in language de): imported without a date',
      'Home: 1 subtasks imported as tasks of their own (no nesting here)',
    ]);
    // Ids come from the backup: reading it again gives the same ones.
    expect(readTodoistBackup(todoistBackup(), 'Europe/Berlin').tasks.map((task) => task.id)).toEqual(
      data.tasks.map((task) => task.id),
    );
  });

  it('refuses a file that is no zip, or a zip without CSV files', () => {
    expect(() => readTodoistBackup(Buffer.from('not a zip at all, just some text'), 'UTC')).toThrow(/not a zip/);
    expect(() => readTodoistBackup(makeZip([{ name: 'a.txt', text: 'x' }], new Date()), 'UTC')).toThrow(/no CSV/);
  });
});
