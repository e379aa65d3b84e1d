import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanUpProcesses, E2E_TEST_TIMEOUT_MS } from '../e2e/support/processes.js';
import {
  eventually,
  getTasks,
  newUser,
  openApp,
  postTask,
  startWebFixture,
  waitForKeptCopy,
  type WebFixture,
} from './support/browser.js';

const HOSTILE = '<img src=x onerror=alert(1)> & "quotes"';

describe('the web app in Chromium against a real serve', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  let fixture: WebFixture;
  beforeAll(async () => {
    fixture = await startWebFixture();
  });
  afterAll(async () => {
    await fixture?.browser.close();
    await cleanUpProcesses();
  });

  it('quick add turns tokens into fields and keeps quoted text literal', async () => {
    const token = await newUser(fixture);
    const { page, context, problems } = await openApp(fixture, token);
    const field = page.getByRole('textbox', { name: 'Add a task' });
    await field.fill('Read "#1 book ^today" #Reading @home *fun !3 ^tomorrow');
    await page.getByRole('button', { name: 'Remove priority 3' }).waitFor();
    await field.press('Enter');
    await field.fill('Call Bob ~waiting');
    await field.press('Enter');
    await page.getByRole('link', { name: /Scheduled/ }).click();
    await page
      .getByRole('list', { name: 'Scheduled' })
      .getByRole('checkbox', { name: 'Complete Read "#1 book ^today"' })
      .waitFor();
    await page.getByRole('link', { name: /Waiting/ }).click();
    await page.getByRole('list', { name: 'Waiting' }).getByRole('checkbox', { name: 'Complete Call Bob' }).waitFor();
    await eventually(async () => {
      const stored = await getTasks(fixture, token);
      expect(stored).toHaveLength(2);
      expect(stored[0]).toMatchObject({
        title: 'Read &quot;#1 book ^today&quot;',
        project: 'Reading',
        context: '@home',
        tags: ['fun'],
        priority: 3,
        attribute: 'plan',
        all_day: true,
      });
      expect(stored[1]).toMatchObject({ title: 'Call Bob', attribute: 'waiting' });
    });
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows a hostile title as text, runs nothing, and sends raw text back', async () => {
    const token = await newUser(fixture);
    const task = await postTask(fixture, token, { title: HOSTILE, notes: 'a &amp; b' });
    const { page, context, problems } = await openApp(fixture, token);
    const title = page.getByRole('button', { name: HOSTILE, exact: true });
    expect(await title.textContent()).toBe(HOSTILE);
    expect(await page.locator('main img').count()).toBe(0);
    await title.click();
    const details = page.getByRole('region', { name: 'Task details' });
    expect(await details.getByLabel('Notes').inputValue()).toBe('a &amp; b');
    await details.getByLabel('Priority').selectOption('high');
    await eventually(async () => {
      const [stored] = await getTasks(fixture, token);
      expect(stored).toMatchObject({ id: task.id, priority: 3, title: task.title, notes: 'a &amp;amp; b' });
    });
    expect(problems).toEqual([]);
    await context.close();
  });

  it('completes and reopens a task, and a repeating task moves to its next day', async () => {
    const token = await newUser(fixture);
    await postTask(fixture, token, {
      title: 'Water plants',
      start_at: '2026-01-05',
      all_day: true,
      repeater: 'FREQ=DAILY',
    });
    await postTask(fixture, token, { title: 'Buy milk' });
    const { page, context, problems } = await openApp(fixture, token);
    await page.getByRole('checkbox', { name: 'Complete Buy milk' }).click();
    await page.getByRole('link', { name: /Completed/ }).click();
    const done = page.getByRole('list', { name: 'Completed' }).getByRole('checkbox', { name: 'Complete Buy milk' });
    await eventually(async () => expect(await done.isChecked()).toBe(true));
    await done.click();
    await page.getByRole('link', { name: /Inbox/ }).click();
    await page.getByRole('list', { name: 'Inbox' }).getByRole('checkbox', { name: 'Complete Buy milk' }).waitFor();

    await page.getByRole('link', { name: /Scheduled/ }).click();
    await page.getByRole('checkbox', { name: 'Complete Water plants' }).click();
    await eventually(async () => {
      const stored = (await getTasks(fixture, token)).find((task) => task.title === 'Water plants');
      expect(stored).toMatchObject({ completed: null, start_at: '2026-01-06 00:00:00 +0000' });
    });
    const row = page
      .getByRole('listitem')
      .filter({ has: page.getByRole('checkbox', { name: 'Complete Water plants' }) });
    await eventually(async () => expect(await row.textContent()).toContain('2026-01-06'));
    expect(await page.getByRole('checkbox', { name: 'Complete Water plants' }).isChecked()).toBe(false);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('Repeat weekly on an Inbox task without a date starts it today, all day, in Scheduled; the empty Inbox says what to do', async () => {
    const token = await newUser(fixture);
    await postTask(fixture, token, { title: 'Water the plants' });
    const { page, context, problems } = await openApp(fixture, token);
    await page.getByRole('button', { name: 'Water the plants' }).click();
    const details = page.getByRole('region', { name: 'Task details' });
    await details.getByLabel('Repeat').selectOption('weekly');
    // The account is in UTC: today is the UTC calendar day.
    const today = new Date().toISOString().slice(0, 10);
    await eventually(async () => {
      const [stored] = await getTasks(fixture, token);
      expect(stored).toMatchObject({
        repeater: 'FREQ=WEEKLY',
        attribute: 'plan',
        all_day: true,
        start_at: `${today} 00:00:00 +0000`,
      });
    });
    const inbox = page.getByRole('list', { name: 'Inbox' });
    await inbox.getByRole('checkbox', { name: 'Complete Water the plants' }).waitFor({ state: 'detached' });
    await page.getByText('Your inbox is empty. Type a task in the field above and press Enter').waitFor();
    await page.getByRole('link', { name: /^Scheduled/ }).click();
    const row = page
      .getByRole('list', { name: 'Scheduled' })
      .getByRole('listitem')
      .filter({ has: page.getByRole('checkbox', { name: 'Complete Water the plants' }) });
    // A date, no time of day.
    await eventually(async () => expect(await row.textContent()).not.toMatch(/\d\d:\d\d/));
    await page.getByRole('link', { name: /^Waiting/ }).click();
    await page.getByText('Nothing you are waiting for. Add one with ~waiting').waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });

  it('saves details with if_rev and reloads the task on a conflict (E009)', async () => {
    const token = await newUser(fixture);
    const task = await postTask(fixture, token, { title: 'Plan trip' });
    const { page, context, problems } = await openApp(fixture, token);
    await page.getByRole('button', { name: 'Plan trip' }).click();
    const details = page.getByRole('region', { name: 'Task details' });
    await details.getByLabel('Title').fill('Plan the trip');
    await details.getByLabel('Title').press('Tab');
    await details.getByLabel('Tags').fill('travel, summer');
    await details.getByLabel('Tags').press('Tab');
    await details.getByLabel('Box').selectOption('next');
    await details.getByLabel('Repeat').selectOption('weekly');
    await eventually(async () => {
      const [stored] = await getTasks(fixture, token);
      expect(stored).toMatchObject({
        title: 'Plan the trip',
        tags: ['travel', 'summer'],
        attribute: 'next',
        repeater: 'FREQ=WEEKLY',
      });
    });
    // The app stops hearing of changes; another client renames the task meanwhile. The rename
    // waits for a listing to be cut, so no listing sent before the cut can bring it back to the app.
    let listingCut = (): void => undefined;
    const cut = new Promise<void>((resolve) => (listingCut = resolve));
    await page.route('**/v1/tasks?*', async (route) => {
      listingCut();
      await route.abort();
    });
    // A round now (as on focus) rather than when the app's held wait runs out, 20 s on.
    await page.evaluate(`dispatchEvent(new Event('focus'))`);
    await cut;
    await postTask(fixture, token, { id: task.id, title: 'Renamed elsewhere' });
    await details.getByLabel('Notes').fill('my notes');
    await details.getByLabel('Notes').press('Tab');
    await page.getByRole('alert').filter({ hasText: 'changed elsewhere' }).waitFor();
    await eventually(async () => expect(await details.getByLabel('Title').inputValue()).toBe('Renamed elsewhere'));
    const [stored] = await getTasks(fixture, token);
    expect(stored).toMatchObject({ title: 'Renamed elsewhere', notes: '' });
    expect(problems).toEqual([]);
    await context.close();
  });

  it('edits dates, project, context and priority, trashes, restores and deletes from the details panel', async () => {
    const token = await newUser(fixture);
    await postTask(fixture, token, { title: 'Pay rent' });
    const { page, context, problems } = await openApp(fixture, token);
    await page.getByRole('button', { name: 'Pay rent' }).click();
    const details = page.getByRole('region', { name: 'Task details' });
    await details.getByLabel('All day').check();
    await details.getByLabel('Start').fill('2030-01-02');
    await details.getByLabel('Start').press('Tab');
    await details.getByLabel('Deadline').fill('2030-01-05');
    await details.getByLabel('Deadline').press('Tab');
    await details.getByLabel('Project').fill('Money');
    await details.getByLabel('Project').press('Tab');
    await details.getByLabel('Context').fill('@desk');
    await details.getByLabel('Context').press('Tab');
    await details.getByLabel('Priority').selectOption('low');
    await details.getByLabel('Box').selectOption('plan');
    await eventually(async () => {
      const [stored] = await getTasks(fixture, token);
      expect(stored).toMatchObject({
        all_day: true,
        start_at: '2030-01-02 00:00:00 +0000',
        end_at: '2030-01-05 00:00:00 +0000',
        project: 'Money',
        context: '@desk',
        priority: 1,
        attribute: 'plan',
      });
    });
    await details.getByRole('button', { name: 'Move to trash' }).click();
    await page.getByRole('link', { name: /^Trash/ }).click();
    await page.getByRole('list', { name: 'Trash' }).getByRole('checkbox', { name: 'Complete Pay rent' }).waitFor();
    await details.getByRole('button', { name: 'Restore' }).click();
    await page
      .getByRole('list', { name: 'Trash' })
      .getByRole('checkbox', { name: 'Complete Pay rent' })
      .waitFor({ state: 'detached' });
    await details.getByRole('button', { name: 'Delete' }).click();
    await page
      .getByRole('alertdialog', { name: 'Delete this task?' })
      .getByRole('button', { name: 'Delete for good' })
      .click();
    await details.waitFor({ state: 'detached' });
    await eventually(async () => expect(await getTasks(fixture, token)).toEqual([]));
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows a change made by another client within 5 seconds, without a reload', async () => {
    const token = await newUser(fixture);
    const { page, context, problems } = await openApp(fixture, token);
    await postTask(fixture, token, { title: 'From the phone' });
    await page.getByRole('checkbox', { name: 'Complete From the phone' }).waitFor({ timeout: 5000 });
    expect(problems).toEqual([]);
    await context.close();
  });

  it('lists everything again after E008, keeping a change waiting to be sent', async () => {
    const token = await newUser(fixture);
    await postTask(fixture, token, { title: 'Before' });
    const { page, context, problems } = await openApp(fixture, token);
    await page.getByRole('checkbox', { name: 'Complete Before' }).waitFor();
    // The server's data "is restored" from here on: like a restored server, it refuses every task
    // cursor with E008 until the app lists the tasks again without one. A request already under way
    // when the route is set (Chromium's offline mode does not cut it) may still bring 'After' the
    // old way; the app's next cursor request is refused all the same.
    const refused: string[] = [];
    let listedAgain = false;
    await page.route(
      (url) => url.pathname === '/v1/tasks',
      async (route) => {
        const url = new URL(route.request().url());
        if (route.request().method() !== 'GET' || listedAgain) return route.continue();
        if (!url.searchParams.has('cursor')) {
          listedAgain = refused.length > 0;
          return route.continue();
        }
        refused.push(url.search);
        const body = JSON.stringify({ retcode: 'E008', retmsg: 'cursor expired', reqdata: '' });
        return route.fulfill({ status: 400, contentType: 'application/json; charset=utf-8', body });
      },
    );
    await context.setOffline(true);
    const field = page.getByRole('textbox', { name: 'Add a task' });
    await field.fill('Mine');
    await field.press('Enter');
    await postTask(fixture, token, { title: 'After' });
    await context.setOffline(false);
    await page.getByRole('status', { name: 'Server data restored' }).waitFor();
    await page.getByRole('checkbox', { name: 'Complete After' }).waitFor();
    await page.getByRole('checkbox', { name: 'Complete Mine' }).waitFor();
    await eventually(() => expect(listedAgain).toBe(true));
    // Once refused, a cursor request lists everything again at once, not one refusal per round.
    expect(refused.filter((search) => !search.includes('wait=')).length).toBe(1);
    await eventually(async () =>
      expect((await getTasks(fixture, token)).map((task) => task.title)).toEqual(['Before', 'After', 'Mine']),
    );
    expect(problems).toEqual([]);
    await context.close();
  });

  it('queues changes offline, keeps them over a reload, and sends them once, in order', async () => {
    const token = await newUser(fixture);
    await postTask(fixture, token, { title: 'Existing' });
    const { page, context, problems } = await openApp(fixture, token);
    await page.getByRole('checkbox', { name: 'Complete Existing' }).waitFor();
    await waitForKeptCopy(page);
    await context.setOffline(true);
    const field = page.getByRole('textbox', { name: 'Add a task' });
    await field.fill('Offline one');
    await field.press('Enter');
    await field.fill('Offline two');
    await field.press('Enter');
    await page.getByRole('checkbox', { name: 'Complete Existing' }).click();
    await page.getByRole('status').filter({ hasText: 'offline, 3 changes waiting' }).waitFor();
    await page.reload();
    await page.getByRole('status').filter({ hasText: 'offline, 3 changes waiting' }).waitFor();
    await page.getByRole('checkbox', { name: 'Complete Offline two' }).waitFor();
    await context.setOffline(false);
    await eventually(async () => {
      const stored = await getTasks(fixture, token);
      expect(stored.map((task) => [task.title, task.completed === null])).toEqual([
        ['Offline one', true],
        ['Offline two', true],
        ['Existing', false],
      ]);
    });
    await eventually(async () => expect(await page.getByRole('status').filter({ hasText: 'offline' }).count()).toBe(0));
    expect(problems).toEqual([]);
    await context.close();
  });
});
