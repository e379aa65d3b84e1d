import { describe, expect, it } from 'vitest';
import { isValidRepeater } from '../../src/domain/repeat.js';
import { readTodoistBackup, readTodoistFiles } from '../../src/service/formats/todoist.js';
import { readPortableFile } from '../../src/service/portable-files.js';
import { recurrenceOf, TODOIST_PHRASES } from '../../src/service/formats/todoist-recurrence.js';
import { TODOIST_DATE_FORMS } from '../../src/service/formats/todoist-dates.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../e2e/support/processes.js';
import { makeZip } from '../support/zip.js';
import { todoistBackup } from '../support/todoist-backup.js';

const HEADER = 'TYPE,CONTENT,DESCRIPTION,PRIORITY,INDENT,AUTHOR,RESPONSIBLE,DATE,DATE_LANG,TIMEZONE';
const MADE = { year: 2026, month: 11, day: 25 }; // a Wednesday

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

  it.each([
    ['today', '2026-11-25', null],
    ['tod', '2026-11-25', null],
    ['tomorrow', '2026-11-26', null],
    ['Tom at 9am', '2026-11-26', '09:00'],
    ['yesterday', '2026-11-24', null],
    ['wednesday', '2026-11-25', null],
    ['fri', '2026-11-27', null],
    ['monday at 18:30', '2026-11-30', '18:30'],
    ['in 3 days', '2026-11-28', null],
    ['in a week', '2026-12-02', null],
    ['in 2 weeks at 7:15pm', '2026-12-09', '19:15'],
    ['Dec 3', '2026-12-03', null],
    ['3 December 2027', '2027-12-03', null],
    ['jan 5', '2027-01-05', null],
    ['february 29', '2028-02-29', null],
    ['at noon', '2026-11-25', '12:00'],
    ['every monday at 9am', '2026-11-30', '09:00'],
    ['every day at 7:30am', '2026-11-25', '07:30'],
  ])('reads "%s" as %s %s, from the day the backup was made (Wednesday 25 November 2026)', (phrase, day, time) => {
    const [task] = readTodoistFiles(
      [{ name: 'Home.csv', text: `${HEADER}\ntask,T,,4,1,,,${phrase},en,UTC`, made: MADE }],
      'UTC',
    ).tasks;
    const start = new Date((task?.startAt ?? 0) / 1000).toISOString();
    expect(start.slice(0, 10)).toBe(day);
    expect(task?.allDay).toBe(time === null);
    if (time !== null) expect(start.slice(11, 16)).toBe(time);
    expect(task?.attribute).toBe('plan');
  });

  it.each(['next friday', 'later this week', 'every monday at 9', 'at 25:00', 'Dec 32', 'in 3 months', 'someday'])(
    'lists "%s" as not mapped and imports the task without a date, in the Inbox',
    (phrase) => {
      const data = readTodoistFiles(
        [{ name: 'Home.csv', text: `${HEADER}\ntask,T,,4,1,,,${phrase},en,UTC`, made: MADE }],
        'UTC',
      );
      expect(data.tasks[0]).toMatchObject({ startAt: null, attribute: 'inbox', project: { name: 'Home' } });
      expect(data.unmapped).toEqual([
        `Home: "T": date "${phrase}" (not a date or recurring phrase this import understands): imported without a date`,
      ]);
    },
  );

  it('reads tasks, labels, priorities, notes and dates, and lists what it cannot map', async () => {
    const data = await readTodoistBackup(todoistBackup(), 'Europe/Berlin');
    const titles = data.tasks.map((task) => task.title);
    expect(titles).toEqual([
      'Water the plants',
      'Sub step',
      'Pay rent, on time',
      'Dentist',
      'Someday',
      'Jeden Tag',
      'Post the letter',
      'Mow the lawn',
      'Buy milk',
    ]);
    const [water, , rent, dentist, someday, , letter, mow, milk] = data.tasks;
    // The first @label is the context (as GTD writes contexts), the others tags.
    expect(water?.context).toEqual({ name: '@garden' });
    expect(water?.tags).toEqual(['daily']);
    expect(letter?.context).toEqual({ name: '@errands' });
    expect(letter?.tags).toEqual([]);
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
    // "tomorrow at 9am": the day after the backup's, 09:00 in the row's zone.
    expect(letter).toMatchObject({ startAt: Date.UTC(2026, 10, 26, 8, 0) * 1000, allDay: false, attribute: 'plan' });
    // Undated tasks wait in the Inbox, their project kept.
    expect(mow).toMatchObject({ attribute: 'inbox', startAt: null, project: { name: 'Home' } });
    expect(someday).toMatchObject({ attribute: 'inbox', startAt: null });
    expect(milk?.project).toBeNull();
    expect(milk?.attribute).toBe('inbox');
    expect(data.unmapped).toEqual([
      'Home: section "Garden" (its tasks imported without it)',
      'Home: "Someday": date "next spring" (not a date or recurring phrase this import understands): imported without a date',
      'Home: "Jeden Tag": date "jeden Tag" (in language de): imported without a date',
      'Home: 1 subtasks imported as tasks of their own (no nesting here)',
    ]);
    // Ids come from the backup: reading it again gives the same ones.
    expect((await readTodoistBackup(todoistBackup(), 'Europe/Berlin')).tasks.map((task) => task.id)).toEqual(
      data.tasks.map((task) => task.id),
    );
  });

  it('refuses a file that is no zip, or a zip without CSV files', async () => {
    await expect(readTodoistBackup(Buffer.from('not a zip at all, just some text'), 'UTC')).rejects.toThrow(
      /not a zip/,
    );
    await expect(readTodoistBackup(makeZip([{ name: 'a.txt', text: 'x' }], new Date()), 'UTC')).rejects.toThrow(
      /no CSV/,
    );
  });

  it("takes one project's CSV (Todoist's project export), named for its project, dated from the day of the import", async () => {
    const now = Date.UTC(2026, 10, 25, 12) * 1000;
    const csv = Buffer.from(`\uFEFF${HEADER}\r\ntask,Buy bread @errands,,4,1,,,tomorrow,en,\r\n`);
    const data = await readPortableFile('todoist', csv, 'Europe/Berlin', { name: 'Groceries.csv', now });
    expect(data.tasks).toMatchObject([
      {
        title: 'Buy bread',
        project: { name: 'Groceries' },
        context: { name: '@errands' },
        startAt: Date.UTC(2026, 10, 25, 23, 0) * 1000,
      },
    ]);
    // The zip goes to the zip reader as before.
    expect((await readPortableFile('todoist', todoistBackup(), 'UTC', { now })).tasks).toHaveLength(9);
    await expect(
      readPortableFile('todoist', Buffer.from('{"format":"task-service account"}'), 'UTC', { now }),
    ).rejects.toThrow(/not a Todoist backup \(a zip\) nor a Todoist project's CSV/);
  });

  it('says in docs/operations.md every date form and phrase it reads', () => {
    const operations = readFileSync(path.join(REPO_ROOT, 'docs', 'operations.md'), 'utf8').replace(/\s+/g, ' ');
    for (const form of [...TODOIST_DATE_FORMS, ...TODOIST_PHRASES]) expect(operations).toContain(form);
  });
});
