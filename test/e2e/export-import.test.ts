import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { contextList, projectList, taskList, type WireTask } from '../../src/http/wire/shapes.js';
import type { TestDatabase } from '../support/postgres.js';
import { newAccount, storeFlags, type StoreArgs } from './support/accounts.js';
import { makeStore, ENGINES } from './support/auth-server.js';
import { oauth, request } from './support/http.js';
import {
  cleanUpProcesses,
  E2E_TEST_TIMEOUT_MS,
  makeTempDir,
  runCli,
  startServe,
  type ServeProcess,
} from './support/processes.js';
import { bodyOf, taskArraySchema, taskSchema } from './support/wire.js';
import { todoistBackup } from '../support/todoist-backup.js';

const databases: TestDatabase[] = [];

/** The record without the named fields. */
function omit(record: object, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([key]) => !keys.includes(key)));
}

/** What a listing shows of a record, without the stamps the importing store gives anew. */
const STAMPS = ['created', 'updated', 'rev'];

function shown(task: WireTask): Record<string, unknown> {
  return omit(task, STAMPS);
}

/** Tasks of every kind the formats must carry, in a zone with daylight saving time. */
const TASKS = [
  { id: 'plain-1', title: 'Plain & <simple>', notes: 'line one\nline two, with "quotes"' },
  {
    id: 'dst-timed',
    title: 'Across the clock change',
    start_at: '2026-03-29 01:30:00 +0100',
    end_at: '2026-03-29 04:15:00 +0200',
    project: 'Home',
    context: 'Phone',
    tags: ['errand', 'urgent'],
    priority: 3,
  },
  { id: 'all-day', title: 'All day', all_day: true, start_at: '2026-10-25 00:00:00 +0200', priority: 1 },
  {
    id: 'repeats',
    title: 'Every Monday',
    start_at: '2026-03-30 09:00:00 +0200',
    repeater: 'FREQ=WEEKLY;BYDAY=MO',
    attribute: 'plan',
    project: 'Work',
  },
  { id: 'done', title: 'Done already', completed: '2026-02-01 12:00:00 +0100', priority: 2 },
  { id: 'binned', title: 'In the trash', trashed: '2026-02-02 08:00:00 +0100', attribute: 'next' },
];

/** A VTODO of another app, with properties of its own and a GEO, none of which a task has a field for. */
const OTHER_APP_ICS = [
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//Other App//EN',
  'BEGIN:VTODO',
  'UID:other-app-1',
  'DTSTAMP:20260301T120000Z',
  'SUMMARY:Buy coffee',
  'X-OTHER-APP-COLOR:#ff8800',
  'GEO:37.386013;-122.082932',
  'X-OTHER-APP-LIST;X-ORDER=2:Errands',
  'END:VTODO',
  'END:VCALENDAR',
  '',
].join('\r\n');

/** Lines of OTHER_APP_ICS that an export must write back. */
const OTHER_APP_LINES = [
  'X-OTHER-APP-COLOR:#ff8800',
  'GEO:37.386013;-122.082932',
  'X-OTHER-APP-LIST;X-ORDER=2:Errands',
];

describe.each(ENGINES)('export and import on %s', { timeout: E2E_TEST_TIMEOUT_MS * 2 }, (engine) => {
  let store: StoreArgs;
  let server: ServeProcess;
  let folder: string;
  const tokens = new Map<string, string>();

  afterAll(async () => {
    await cleanUpProcesses();
    await Promise.all(databases.map((database) => database.drop()));
  });

  const get = async (username: string, what: 'tasks' | 'projects' | 'contexts', query = '') =>
    request(server.origin, { path: `/v1/${what}${query}`, headers: oauth(tokens.get(username) ?? '') });
  const tasksOf = async (username: string): Promise<WireTask[]> =>
    bodyOf(await get(username, 'tasks'), taskList).entries.sort((a, b) => a.id.localeCompare(b.id));

  const account = async (username: string): Promise<void> => {
    tokens.set(username, await newAccount(store, username, ['--timezone', 'Europe/Berlin']));
  };
  const cli = (args: readonly string[]) => runCli([...args, ...storeFlags(store)], { timeoutMs: 30_000 });

  it('exports lossless JSON and imports it into an empty account as the same listing', async () => {
    const made = await makeStore(engine);
    if (made.database !== undefined) databases.push(made.database);
    store = made.store;
    folder = await makeTempDir('export');
    await account('source');
    server = await startServe({
      dataDir: store.dataDir,
      http: true,
      ...(store.databaseUrl === undefined ? {} : { databaseUrl: store.databaseUrl }),
    });
    const token = tokens.get('source') ?? '';
    bodyOf(await request(server.origin, { path: '/v1/tasks', headers: oauth(token), body: TASKS }), taskArraySchema);
    await request(server.origin, {
      path: '/v1/projects',
      headers: oauth(token),
      body: { name: 'Archived one', notes: 'kept', archived: '2026-01-01 00:00:00 +0100' },
    });

    const exported = await cli(['export', 'source']);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stderr).toContain(`${TASKS.length} tasks`);
    const file = path.join(folder, 'source.json');
    writeFileSync(file, exported.stdout);

    await account('copy');
    const imported = await cli(['import', 'copy', file]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toContain(`tasks: ${TASKS.length} created, 0 updated, 0 unchanged`);

    expect((await tasksOf('copy')).map(shown)).toEqual((await tasksOf('source')).map(shown));
    const projectsOf = async (username: string) =>
      bodyOf(await get(username, 'projects'), projectList)
        .entries.sort((a, b) => a.id.localeCompare(b.id))
        .map((project) => omit(project, STAMPS));
    expect(await projectsOf('copy')).toEqual(await projectsOf('source'));
    const contextNames = async (username: string) =>
      bodyOf(await get(username, 'contexts'), contextList).entries.map((context) => [context.id, context.name]);
    expect(await contextNames('copy')).toEqual(await contextNames('source'));
  });

  it('changes nothing when the same file is imported again, not even a change number', async () => {
    const before = bodyOf(await get('copy', 'tasks'), taskList);
    const again = await cli(['import', 'copy', path.join(folder, 'source.json')]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain(`tasks: 0 created, 0 updated, ${TASKS.length} unchanged`);
    expect(again.stdout).toContain('projects: 0 created, 0 updated, 3 unchanged');
    const since = bodyOf(await get('copy', 'tasks', `?cursor=${encodeURIComponent(before.cursor)}`), taskList);
    expect(since.entries).toEqual([]);
    expect(since.cursor).toBe(before.cursor);
  });

  it('says what a dry run would change and changes nothing', async () => {
    await account('dry');
    const dry = await cli(['import', 'dry', path.join(folder, 'source.json'), '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`tasks: ${TASKS.length} would be created`);
    expect(await tasksOf('dry')).toEqual([]);
  });

  it('refuses a file with a record the API would refuse, naming the record and the field', async () => {
    await account('refused');
    const document = z
      .looseObject({ tasks: z.array(z.looseObject({})).min(1) })
      .parse(JSON.parse(readFileSync(path.join(folder, 'source.json'), 'utf8')));
    const first = { ...document.tasks[0], project_id: null, context_id: null };
    const bad = {
      ...document,
      projects: [],
      contexts: [],
      tasks: [
        { ...first, id: 'fine' },
        { ...first, id: 'backwards', start_at: '2026-05-02T10:00:00.000000Z', end_at: '2026-05-01T10:00:00.000000Z' },
      ],
    };
    const file = path.join(folder, 'bad.json');
    writeFileSync(file, JSON.stringify(bad));
    const refused = await cli(['import', 'refused', file]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('task 2 of the file (id backwards), end_at: before start_at');
    expect(await tasksOf('refused')).toEqual([]);
  });

  it('exports iCalendar and imports it back into the same tasks', async () => {
    const exported = await cli(['export', 'source', '--format', 'ics']);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toMatch(/^BEGIN:VCALENDAR\r\n/);
    expect(exported.stdout).toContain('DTSTART;VALUE=DATE:20261025');
    expect(exported.stdout).toContain('DTSTART:20260329T003000Z');
    expect(exported.stdout).toContain('RRULE:FREQ=WEEKLY;BYDAY=MO');
    const file = path.join(folder, 'source.ics');
    writeFileSync(file, exported.stdout);

    await account('fromics');
    const imported = await cli(['import', 'fromics', file]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toContain(`tasks: ${TASKS.length} created`);
    // Labels travel by name in iCalendar: the importing account makes its own ids for them.
    const byName = (task: WireTask) => omit(task, [...STAMPS, 'project_id', 'context_id']);
    expect((await tasksOf('fromics')).map(byName)).toEqual((await tasksOf('source')).map(byName));

    const again = await cli(['import', 'fromics', file]);
    expect(again.stdout).toContain(`tasks: 0 created, 0 updated, ${TASKS.length} unchanged`);
  });

  it("keeps another app's iCalendar properties through import, the store, an API change and export", async () => {
    const exportIcs = async (username: string): Promise<string> => {
      const exported = await cli(['export', username, '--format', 'ics']);
      expect(exported.code, exported.stderr).toBe(0);
      return exported.stdout;
    };
    const expectKept = (ics: string): void => {
      for (const line of OTHER_APP_LINES) expect(ics).toContain(`\r\n${line}\r\n`);
    };
    const file = path.join(folder, 'other-app.ics');
    writeFileSync(file, OTHER_APP_ICS);
    await account('extras');
    const imported = await cli(['import', 'extras', file]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toContain('tasks: 1 created');
    expect(imported.stdout).not.toContain('not mapped');
    expectKept(await exportIcs('extras'));

    // The API neither shows them nor takes them, and a change through it keeps them.
    const listed = await get('extras', 'tasks');
    expect(listed.text).toContain('Buy coffee');
    expect(listed.text).not.toMatch(/OTHER-APP|GEO|ical_extras/);
    const changed = await request(server.origin, {
      path: '/v1/tasks',
      headers: oauth(tokens.get('extras') ?? ''),
      body: { id: 'other-app-1', title: 'Buy beans', ical_extras: 'X-SENT-BY-API:1\r\n' },
    });
    expect(bodyOf(changed, taskSchema).title).toBe('Buy beans');
    expect(changed.text).not.toMatch(/OTHER-APP|SENT-BY-API|ical_extras/);
    const afterChange = await exportIcs('extras');
    expectKept(afterChange);
    expect(afterChange).toContain('\r\nSUMMARY:Buy beans\r\n');
    expect(afterChange).not.toContain('X-SENT-BY-API');

    // The same file again changes nothing but the title it names.
    const again = await cli(['import', 'extras', file]);
    expect(again.stdout).toContain('tasks: 0 created, 1 updated, 0 unchanged');
    expectKept(await exportIcs('extras'));

    // Through the lossless JSON into another account, and out as iCalendar again.
    const json = await cli(['export', 'extras']);
    expect(json.code, json.stderr).toBe(0);
    const jsonFile = path.join(folder, 'extras.json');
    writeFileSync(jsonFile, json.stdout);
    await account('extrascopy');
    const copied = await cli(['import', 'extrascopy', jsonFile]);
    expect(copied.code, copied.stderr).toBe(0);
    expect(copied.stdout).toContain('tasks: 1 created');
    const copy = await exportIcs('extrascopy');
    expectKept(copy);
    expect(copy).toContain('\r\nSUMMARY:Buy coffee\r\n');
  });

  it('imports a Todoist backup, lists what it could not map, and changes nothing the second time', async () => {
    const file = path.join(folder, 'todoist-backup.zip');
    writeFileSync(file, todoistBackup());
    await account('fromtodoist');
    const dry = await cli(['import', 'fromtodoist', file, '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('tasks: 9 would be created');
    expect(dry.stdout).toContain('projects: 1 would be created');
    expect(await tasksOf('fromtodoist')).toEqual([]);

    const imported = await cli(['import', 'fromtodoist', file]);
    expect(imported.code, imported.stderr).toBe(0);
    // The project and the contexts its tasks name are made, and counted.
    expect(imported.stdout).toContain('projects: 1 created, 0 updated, 0 unchanged');
    expect(imported.stdout).toContain('contexts: 2 created, 0 updated, 0 unchanged');
    expect(imported.stdout).toContain('tasks: 9 created, 0 updated, 0 unchanged');
    expect(imported.stdout).toContain('not mapped (3)');
    expect(imported.stdout).toContain('section "Garden"');
    const tasks = await tasksOf('fromtodoist');
    const water = tasks.find((task) => task.title === 'Water the plants');
    expect(water?.repeater).toBe('FREQ=WEEKLY;BYDAY=MO');
    expect(water?.project).toBe('Home');
    expect(water?.start_at).toBe('2026-11-30 00:00:00 +0100');
    expect(water?.context).toBe('@garden');
    expect(tasks.find((task) => task.title === 'Mow the lawn')?.attribute).toBe('inbox');
    // Indented under it in the backup: its subtask.
    expect(tasks.find((task) => task.title === 'Sub step')?.parent_id).toBe(water?.id);

    const before = bodyOf(await get('fromtodoist', 'tasks'), taskList);
    const again = await cli(['import', 'fromtodoist', file]);
    expect(again.stdout).toContain('tasks: 0 created, 0 updated, 9 unchanged');
    expect(again.stdout).toContain('projects: 0 created, 0 updated, 1 unchanged');
    const since = bodyOf(await get('fromtodoist', 'tasks', `?cursor=${encodeURIComponent(before.cursor)}`), taskList);
    expect(since.entries).toEqual([]);
  });

  it("imports one Todoist project's CSV, as Todoist's project export gives it", async () => {
    const file = path.join(folder, 'Groceries.csv');
    writeFileSync(
      file,
      'TYPE,CONTENT,DESCRIPTION,PRIORITY,INDENT,AUTHOR,RESPONSIBLE,DATE,DATE_LANG,TIMEZONE\r\n' +
        'task,Buy bread @errands,,4,1,,,,en,\r\ntask,Buy eggs,,1,1,,,,en,\r\n',
    );
    await account('fromcsv');
    const imported = await cli(['import', 'fromcsv', file]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toContain('projects: 1 created');
    expect(imported.stdout).toContain('tasks: 2 created');
    const tasks = await tasksOf('fromcsv');
    expect(tasks.map((task) => [task.title, task.project, task.context, task.attribute])).toEqual([
      ['Buy bread', 'Groceries', '@errands', 'inbox'],
      ['Buy eggs', 'Groceries', null, 'inbox'],
    ]);
  });
});
