import { describe, expect, it } from 'vitest';
import { IMPORT_BODY_LIMIT_BYTES } from '../../src/http/auth-pages/portability-routes.js';
import { ENGINES } from '../support/harness.js';
import { Client } from './support/api.js';
import { InProcessBrowser } from './support/browser.js';
import { useHarness } from './support/setup.js';

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringAt(value: unknown, key: string): string {
  const inner = isRecord(value) ? value[key] : undefined;
  if (typeof inner !== 'string') throw new Error(`no string ${key} in ${JSON.stringify(value)}`);
  return inner;
}

/** Two tasks as another app writes them: one all-day, one with a title that is markup. */
const CALENDAR = [
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//Another App//EN',
  'BEGIN:VTODO',
  'UID:web-import-1@another.example',
  'DTSTAMP:20260301T120000Z',
  'SUMMARY:Renew the passport',
  'DUE;VALUE=DATE:20260410',
  'END:VTODO',
  'BEGIN:VTODO',
  'UID:web-import-2@another.example',
  'DTSTAMP:20260301T120000Z',
  'SUMMARY:<b>bold</b> & co',
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

const PASSWORD = 'correct horse battery';

// Settings' export and import (docs/web.md), in-process: every answer is checked against the
// OpenAPI document by the shared client on the way in.
describe.each(ENGINES)('export and import for the signed-in browser on %s', (engine) => {
  const suite = useHarness(engine, { services: { signup: true }, app: { webAuth: true } });
  let accounts = 0;

  /** A browser signed in to a new account, its CSRF header, and an API client of the same account. */
  async function signedIn(): Promise<{ browser: InProcessBrowser; csrf: Record<string, string>; api: Client }> {
    const { app } = suite().harness;
    accounts += 1;
    const browser = new InProcessBrowser(app);
    await browser.signUp(`porter${accounts}_${process.pid}`, PASSWORD);
    const csrf = { 'x-csrf-token': stringAt((await browser.get('/account/session')).json, 'csrf') };
    const token = stringAt((await browser.post('/account/app-token', {}, csrf)).json, 'access_token');
    return { browser, csrf, api: new Client(app, token) };
  }

  async function titles(api: Client): Promise<string[]> {
    return (await api.listTasks()).entries.map((task) => task.title).sort();
  }

  it('answers 401 without a session, even to a token, and 403 to a POST without the CSRF token', async () => {
    const { app } = suite().harness;
    const stranger = new InProcessBrowser(app);
    const exported = await stranger.get('/account/export?format=json');
    expect(exported.status).toBe(401);
    expect(exported.json).toEqual({ error: 'signed_out', message: 'not signed in: sign in at /login' });

    // A token of the account is not a session.
    const { browser, csrf, api } = await signedIn();
    const withToken = await new InProcessBrowser(app).get('/account/export', { authorization: `OAuth ${api.token}` });
    expect(withToken.status).toBe(401);

    // With a CSRF token a page gave, but nobody signed in.
    const page = await stranger.get('/signup');
    const pageCsrf = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
    const signedOut = await stranger.postFile('/account/import?format=ics', CALENDAR, { 'x-csrf-token': pageCsrf });
    expect(signedOut.status).toBe(401);

    for (const headers of [{}, { 'x-csrf-token': 'wrong' }, { ...csrf, origin: 'https://evil.example' }]) {
      const refused = await browser.postFile('/account/import?format=ics', CALENDAR, headers);
      expect(refused.status).toBe(403);
      expect(refused.json).toMatchObject({ error: 'forbidden' });
    }
    expect(await titles(api)).toEqual([]);
  });

  it("downloads the account's data as JSON and as iCalendar", async () => {
    const { browser, api } = await signedIn();
    await api.createTask({ id: 'a1', title: 'Water the plants', notes: 'the big one & <the small>' });
    await api.createTask({ id: 'a2', title: 'Pay rent', start_at: '2026-12-01', all_day: true });

    const json = await browser.get('/account/export?format=json');
    expect(json.status).toBe(200);
    expect(json.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(json.headers['cache-control']).toBe('no-store');
    expect(json.headers['content-disposition']).toMatch(
      /^attachment; filename="task-service-\d{4}-\d{2}-\d{2}\.json"$/,
    );
    expect(json.json).toMatchObject({ format: 'task-service account', version: 3 });
    const tasks = isRecord(json.json) && Array.isArray(json.json['tasks']) ? json.json['tasks'] : [];
    // The file holds the text as it is: it is a file, not an answer shown in a page.
    expect(tasks).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: 'a1', title: 'Water the plants', notes: 'the big one & <the small>' }),
        expect.objectContaining({ id: 'a2', title: 'Pay rent', all_day: true }),
      ]),
    );
    // Without a format, JSON.
    expect((await browser.get('/account/export')).headers['content-type']).toBe('application/json; charset=utf-8');

    const ics = await browser.get('/account/export?format=ics');
    expect(ics.status).toBe(200);
    expect(ics.headers['content-type']).toBe('text/calendar; charset=utf-8');
    expect(ics.headers['content-disposition']).toMatch(/filename="task-service-\d{4}-\d{2}-\d{2}\.ics"$/);
    expect(ics.text).toContain('BEGIN:VTODO');
    expect(ics.text).toContain('SUMMARY:Water the plants');

    const unknown = await browser.get('/account/export?format=csv');
    expect(unknown.status).toBe(400);
    expect(unknown.json).toEqual({ error: 'invalid', message: 'format must be one of json, ics' });
  });

  it('previews an import without changing anything, imports it, and changes nothing the second time', async () => {
    const { browser, csrf, api } = await signedIn();
    const preview = await browser.postFile('/account/import?format=ics&dry_run=1', CALENDAR, csrf);
    expect(preview.status).toBe(200);
    expect(preview.headers['cache-control']).toBe('no-store');
    expect(preview.json).toEqual({
      dry_run: true,
      settings_changed: false,
      projects: { created: 0, updated: 0, unchanged: 0 },
      contexts: { created: 0, updated: 0, unchanged: 0 },
      tasks: { created: 2, updated: 0, unchanged: 0 },
      changed: [
        { kind: 'task', name: 'Renew the passport', change: 'created' },
        { kind: 'task', name: '&lt;b&gt;bold&lt;/b&gt; &amp; co', change: 'created' },
      ],
      unmapped: ['1 components other than VTODO (events, journals) left out'],
    });
    expect(await titles(api)).toEqual([]);
    const head = (await api.listTasks()).cursor;

    const imported = await browser.postFile('/account/import?format=ics', CALENDAR, csrf);
    expect(imported.json).toMatchObject({ dry_run: false, tasks: { created: 2, updated: 0, unchanged: 0 } });
    expect(await titles(api)).toEqual(['&lt;b&gt;bold&lt;/b&gt; &amp; co', 'Renew the passport']);
    const afterImport = (await api.listTasks()).cursor;
    expect(afterImport).not.toBe(head);

    const again = await browser.postFile('/account/import?format=ics&dry_run=0', CALENDAR, csrf);
    expect(again.json).toMatchObject({ tasks: { created: 0, updated: 0, unchanged: 2 }, changed: [] });
    // Not even a change number moved.
    expect((await api.listTasks()).cursor).toBe(afterImport);
  });

  it("previews and imports one Todoist project's CSV, named for its project by the file's name", async () => {
    const { browser, csrf, api } = await signedIn();
    const csv =
      'TYPE,CONTENT,DESCRIPTION,PRIORITY,INDENT,AUTHOR,RESPONSIBLE,DATE,DATE_LANG,TIMEZONE\r\n' +
      'task,Buy bread @errands,,4,1,,,,en,\r\ntask,Call the bakery,,4,1,,,every blue moon,en,\r\n';
    const preview = await browser.postFile('/account/import?format=todoist&dry_run=1&name=Groceries.csv', csv, csrf);
    expect(preview.status, preview.text).toBe(200);
    expect(preview.json).toMatchObject({
      dry_run: true,
      projects: { created: 1, updated: 0, unchanged: 0 },
      contexts: { created: 1, updated: 0, unchanged: 0 },
      tasks: { created: 2, updated: 0, unchanged: 0 },
      unmapped: [
        // Text in an answer is escaped, as everywhere.
        'Groceries: &quot;Call the bakery&quot;: date &quot;every blue moon&quot; (not a date or recurring phrase this import understands): imported without a date',
      ],
    });
    expect(await titles(api)).toEqual([]);
    const imported = await browser.postFile('/account/import?format=todoist&name=Groceries.csv', csv, csrf);
    expect(imported.json).toMatchObject({ dry_run: false, projects: { created: 1 }, tasks: { created: 2 } });
    const [bread] = (await api.listTasks()).entries.filter((task) => task.title === 'Buy bread');
    expect(bread).toMatchObject({ project: 'Groceries', context: '@errands', attribute: 'inbox' });
  });

  it("imports one account's JSON export into another, with the same tasks", async () => {
    const from = await signedIn();
    await from.api.createTask({ id: 'j1', title: 'Plan the trip', priority: 2, tags: ['travel'] });
    const file = (await from.browser.get('/account/export?format=json')).text;
    const to = await signedIn();
    const report = await to.browser.postFile('/account/import?format=json', file, to.csrf);
    expect(report.json).toMatchObject({ dry_run: false, tasks: { created: 1, updated: 0, unchanged: 0 } });
    const [task] = (await to.api.listTasks()).entries;
    expect(task).toMatchObject({ id: 'j1', title: 'Plan the trip', priority: 2, tags: ['travel'] });
  });

  it('refuses a file too large, not of its format, or without a format, saying why', async () => {
    const { browser, csrf, api } = await signedIn();
    const huge = await browser.postFile('/account/import?format=ics', Buffer.alloc(IMPORT_BODY_LIMIT_BYTES + 1), csrf);
    expect(huge.status).toBe(413);
    expect(huge.json).toEqual({
      error: 'too_large',
      message: 'the file is larger than an import takes (8 MiB): split it, or import it with the command line',
    });
    const notCalendar = await browser.postFile('/account/import?format=ics', 'hello', csrf);
    expect(notCalendar.status).toBe(400);
    expect(stringAt(notCalendar.json, 'message')).toMatch(/^the file cannot be imported: not iCalendar/);
    const notExport = await browser.postFile('/account/import?format=json', '{"tasks": []}', csrf);
    expect(stringAt(notExport.json, 'message')).toMatch(
      /^the file cannot be imported: not a task-service account export/,
    );
    const noFormat = await browser.postFile('/account/import', CALENDAR, csrf);
    expect(noFormat.json).toEqual({ error: 'invalid', message: 'format must be one of json, ics, todoist' });
    const empty = await browser.postFile('/account/import?format=ics', '', csrf);
    expect(empty.status).toBe(400);
    const badDryRun = await browser.postFile('/account/import?format=ics&dry_run=maybe', CALENDAR, csrf);
    expect(badDryRun.json).toEqual({ error: 'invalid', message: 'dry_run must be 1 or 0' });
    expect(await titles(api)).toEqual([]);
  });

  it('refuses a record the API would refuse, naming it, and changes nothing in a dry run', async () => {
    const { browser, csrf, api } = await signedIn();
    const source = await signedIn();
    await source.api.createTask({ id: 'ok', title: 'Fine' });
    const file = (await source.browser.get('/account/export?format=json')).text;
    // A task in Scheduled without a start, as a hand-edited file might hold.
    const broken = file.replace('"attribute": "inbox"', '"attribute": "plan"');
    expect(broken).not.toBe(file);
    const refused = await browser.postFile('/account/import?format=json&dry_run=1', broken, csrf);
    expect(refused.status).toBe(400);
    expect(stringAt(refused.json, 'message')).toBe(
      'the import was refused at task 1 of the file (id ok), attribute: plan needs start_at',
    );
    expect(await titles(api)).toEqual([]);
  });

  it('refuses text the API would refuse (too long, U+0000) before writing anything', async () => {
    const { browser, csrf, api } = await signedIn();
    const source = await signedIn();
    await source.api.createTask({ id: 'first', title: 'Fine' });
    await source.api.createTask({ id: 'second', title: 'Also fine' });
    const file = (await source.browser.get('/account/export?format=json')).text;
    for (const [title, reason] of [
      ['x'.repeat(1001), 'title: at most 1000 characters'],
      ['nul \u0000 inside', 'title: must not contain U+0000'],
    ] as const) {
      const broken = file.replace('"Also fine"', JSON.stringify(title));
      const refused = await browser.postFile('/account/import?format=json', broken, csrf);
      expect(refused.status, reason).toBe(400);
      const message = stringAt(refused.json, 'message');
      expect(message).toMatch(/^the import was refused at task \d of the file \(id second\), /);
      expect(message.endsWith(reason), message).toBe(true);
      // Nothing of the file was written, not even the records before the refused one.
      expect(await titles(api)).toEqual([]);
    }
  });
});
