import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUserWithPassword } from '../e2e/support/auth-server.js';
import { cleanUpProcesses, E2E_TEST_TIMEOUT_MS } from '../e2e/support/processes.js';
import {
  getTasks,
  openBrowser,
  postTask,
  startWebFixture,
  TOKEN_STORAGE_KEY,
  waitForInbox,
  type OpenApp,
  type WebFixture,
} from './support/browser.js';

const PASSWORD = 'correct horse battery';

/** Two tasks as another app writes them, one titled with markup, and an event nothing takes. */
const CALENDAR = [
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//Another App//EN',
  'BEGIN:VTODO',
  'UID:chromium-import-1@another.example',
  'DTSTAMP:20260301T120000Z',
  'SUMMARY:Book the ferry',
  'END:VTODO',
  'BEGIN:VTODO',
  'UID:chromium-import-2@another.example',
  'DTSTAMP:20260301T120000Z',
  'SUMMARY:<img src=x onerror=alert(1)> tickets',
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

let people = 0;

describe("Settings' export and import in Chromium", { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  let fixture: WebFixture;
  beforeAll(async () => {
    fixture = await startWebFixture();
  });
  afterAll(async () => {
    await fixture?.browser.close();
    await cleanUpProcesses();
  });

  /** A new account with a password, signed in through the real pages, on its Settings. */
  async function inSettings(): Promise<OpenApp & { token: string }> {
    people += 1;
    const username = `porter${process.pid}x${people}`;
    await addUserWithPassword({ dataDir: fixture.dataDir }, username, PASSWORD);
    const opened = await openBrowser(fixture);
    const { page } = opened;
    await page.goto(`${fixture.server.origin}/`);
    await page.waitForURL(/\/login\?next=/);
    await page.getByRole('textbox', { name: 'Username' }).fill(username);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await waitForInbox(page);
    await page.getByRole('link', { name: 'Settings' }).click();
    return { ...opened, token: await tokenIn(page) };
  }

  async function tokenIn(page: Page): Promise<string> {
    const token: unknown = await page.evaluate(`sessionStorage.getItem(${JSON.stringify(TOKEN_STORAGE_KEY)})`);
    if (typeof token !== 'string') throw new Error('the app keeps no token');
    return token;
  }

  it("downloads a JSON file that lists the account's tasks", async () => {
    const { page, context, problems, token } = await inSettings();
    await postTask(fixture, token, { id: 'exported-1', title: 'Water the <plants>' });
    const exporting = page.getByRole('region', { name: 'Export' });
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      exporting.getByRole('link', { name: 'Download JSON' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^task-service-\d{4}-\d{2}-\d{2}\.json$/);
    const file: unknown = JSON.parse(await readFile(await download.path(), 'utf8'));
    expect(file).toMatchObject({
      format: 'task-service account',
      tasks: [expect.objectContaining({ id: 'exported-1', title: 'Water the <plants>' })],
    });
    expect(problems).toEqual([]);
    await context.close();
  });

  it('previews an .ics file, changing nothing, then imports it and shows its tasks', async () => {
    const { page, context, problems, token } = await inSettings();
    const importing = page.getByRole('region', { name: 'Import' });
    await importing
      .getByLabel('File')
      .setInputFiles({ name: 'tasks.ics', mimeType: 'text/calendar', buffer: Buffer.from(CALENDAR) });
    // The format follows the file's name.
    expect(await importing.getByRole('combobox', { name: 'Format' }).inputValue()).toBe('ics');
    await importing.getByRole('button', { name: 'Preview' }).click();

    const preview = importing.getByLabel('Import preview');
    const tasksRow = preview.getByRole('row', { name: /^Tasks/ });
    await tasksRow.waitFor();
    expect(await tasksRow.getByRole('cell').allTextContents()).toEqual(['2', '0', '0']);
    const records = preview.getByRole('list', { name: 'Records that would change' });
    expect(await records.getByRole('listitem').allTextContents()).toEqual([
      'new Task: Book the ferry',
      'new Task: <img src=x onerror=alert(1)> tickets',
    ]);
    // The file's text is text: no element was made of it.
    expect(await page.locator('.import-report img').count()).toBe(0);
    expect(await preview.getByRole('list', { name: 'Not mapped' }).textContent()).toContain(
      '1 components other than VTODO',
    );
    await importing.getByRole('status').filter({ hasText: 'Nothing is changed until you press Import.' }).waitFor();
    expect(await getTasks(fixture, token)).toEqual([]);

    await importing.getByRole('button', { name: 'Import' }).click();
    await importing.getByRole('status').filter({ hasText: 'Imported tasks.ics.' }).waitFor();
    // The API's wire escapes text; the app shows it unescaped, as text.
    expect((await getTasks(fixture, token)).map((task) => task.title).sort()).toEqual([
      '&lt;img src=x onerror=alert(1)&gt; tickets',
      'Book the ferry',
    ]);
    await page.getByRole('link', { name: /^Inbox/ }).click();
    await page.getByRole('checkbox', { name: 'Complete Book the ferry' }).waitFor();
    await page.getByRole('checkbox', { name: 'Complete <img src=x onerror=alert(1)> tickets' }).waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });

  it("previews one Todoist project's CSV, the format and the project taken from its name", async () => {
    const { page, context, problems, token } = await inSettings();
    const importing = page.getByRole('region', { name: 'Import' });
    const csv =
      'TYPE,CONTENT,DESCRIPTION,PRIORITY,INDENT,AUTHOR,RESPONSIBLE,DATE,DATE_LANG,TIMEZONE\r\n' +
      'task,Buy bread @errands,,4,1,,,tomorrow,en,\r\n';
    await importing
      .getByLabel('File')
      .setInputFiles({ name: 'Groceries.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    expect(await importing.getByRole('combobox', { name: 'Format' }).inputValue()).toBe('todoist');
    await importing.getByRole('button', { name: 'Preview' }).click();
    const preview = importing.getByLabel('Import preview');
    const projectsRow = preview.getByRole('row', { name: /^Projects/ });
    await projectsRow.waitFor();
    expect(await projectsRow.getByRole('cell').allTextContents()).toEqual(['1', '0', '0']);
    expect(await preview.getByRole('list', { name: 'Records that would change' }).textContent()).toContain(
      'Project: Groceries',
    );
    expect(await getTasks(fixture, token)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});
