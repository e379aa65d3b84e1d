import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanUpProcesses, E2E_TEST_TIMEOUT_MS, runCli } from '../e2e/support/processes.js';
import {
  bounded,
  eventually,
  getTasks,
  newUser,
  openApp,
  postTask,
  startWebFixture,
  TOKEN_STORAGE_KEY,
  type WebFixture,
} from './support/browser.js';

describe('the web app: views, search, keyboard, settings, sign-out', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  let fixture: WebFixture;
  beforeAll(async () => {
    fixture = await startWebFixture();
  });
  afterAll(async () => {
    await fixture?.browser.close();
    await cleanUpProcesses();
  });

  it('shows each box, Next by context, a project, and filters by search', async () => {
    const token = await newUser(fixture);
    await postTask(fixture, token, { title: 'Sort mail' });
    await postTask(fixture, token, { title: 'Call plumber', attribute: 'next', context: '@phone', project: 'House' });
    await postTask(fixture, token, {
      title: 'Fix gutter',
      attribute: 'next',
      context: '@home',
      project: 'House',
      tags: ['roof'],
    });
    await postTask(fixture, token, { title: 'Learn cello', attribute: 'noplan' });
    await postTask(fixture, token, { title: 'Parcel from Ann', attribute: 'waiting' });
    const { page, context, problems } = await openApp(fixture, token);
    const nav = page.getByRole('navigation');
    expect(await nav.getByRole('link', { name: 'Next 2', exact: true }).textContent()).toBe('Next 2');

    await nav.getByRole('link', { name: /^Next/ }).click();
    const next = page.getByRole('list', { name: 'Next' });
    expect(await next.getByRole('listitem').allTextContents()).toEqual([
      '@home',
      expect.stringContaining('Fix gutter'),
      '@phone',
      expect.stringContaining('Call plumber'),
    ]);
    await nav.getByRole('link', { name: /^Someday/ }).click();
    await page.getByRole('list', { name: 'Someday' }).getByRole('checkbox', { name: 'Complete Learn cello' }).waitFor();
    await nav.getByRole('link', { name: /^Waiting/ }).click();
    await page
      .getByRole('list', { name: 'Waiting' })
      .getByRole('checkbox', { name: 'Complete Parcel from Ann' })
      .waitFor();
    await nav.getByRole('link', { name: 'House' }).click();
    const house = page.getByRole('list', { name: 'House' });
    await house.getByRole('checkbox', { name: 'Complete Fix gutter' }).waitFor();

    // Search covers the whole account, each hit saying where it is.
    const results = page.getByRole('list', { name: 'Search results' });
    await page.getByRole('searchbox', { name: 'Search' }).fill('roof');
    await eventually(async () => expect(await results.getByRole('checkbox').count()).toBe(1));
    await page.getByRole('searchbox', { name: 'Search' }).fill('cello');
    await results.getByRole('checkbox', { name: 'Complete Learn cello' }).waitFor();
    expect(await results.getByRole('listitem').allTextContents()).toEqual([
      'Someday',
      expect.stringContaining('in Someday'),
    ]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('works from the keyboard alone', async () => {
    const token = await newUser(fixture);
    await postTask(fixture, token, { title: 'First' });
    await postTask(fixture, token, { title: 'Second', priority: 1 });
    const { page, context, problems } = await openApp(fixture, token);
    await page.getByRole('checkbox', { name: 'Complete First' }).waitFor();
    await page.locator('body').focus();
    await page.keyboard.press('n');
    await page.keyboard.type('Typed !2');
    await page.keyboard.press('Enter');
    await page.getByRole('checkbox', { name: 'Complete Typed' }).waitFor();
    await page.keyboard.press('Escape');
    // Typed (priority 2), Second (1), First; the task just added is selected: j moves to Second.
    await page.keyboard.press('j');
    await page.keyboard.press('x');
    await page.getByRole('checkbox', { name: 'Complete Second' }).waitFor({ state: 'detached' });
    await page.keyboard.press('k');
    await page.keyboard.press('e');
    const details = page.getByRole('region', { name: 'Task details' });
    expect(await details.getByLabel('Title').inputValue()).toBe('Typed');
    await page.keyboard.press('Escape');
    await details.waitFor({ state: 'detached' });
    await page.keyboard.press('/');
    await page.keyboard.type('fir');
    await eventually(async () => expect(await page.getByRole('checkbox').count()).toBe(1));
    await page.keyboard.press('Escape');
    await page.keyboard.press('?');
    await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
    await page.keyboard.press('Escape');
    await page.keyboard.press('5');
    await page.getByRole('list', { name: 'Waiting' }).waitFor({ state: 'attached' });
    await eventually(async () => {
      const stored = await getTasks(fixture, token);
      expect(stored.find((task) => task.title === 'Second')?.completed).not.toBeNull();
      expect(stored.find((task) => task.title === 'Typed')?.priority).toBe(2);
    });
    expect(problems).toEqual([]);
    await context.close();
  });

  it('moves dates when the time zone changes in settings', async () => {
    const token = await newUser(fixture);
    await postTask(fixture, token, { title: 'Dentist', start_at: '2030-03-04 09:30:00 +0000' });
    const { page, context, problems } = await openApp(fixture, token);
    await page.getByRole('link', { name: /^Scheduled/ }).click();
    const row = page.getByRole('listitem').filter({ has: page.getByRole('checkbox', { name: 'Complete Dentist' }) });
    await eventually(async () => expect(await row.textContent()).toContain('2030-03-04 09:30'));
    await page.getByRole('link', { name: 'Settings' }).click();
    const zone = page.getByRole('combobox', { name: 'Time zone' });
    await zone.fill('Asia/Tokyo');
    await zone.press('Enter');
    await zone.press('Tab');
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await page.getByRole('link', { name: /^Scheduled/ }).click();
    await eventually(async () => expect(await row.textContent()).toContain('2030-03-04 18:30'));
    const [stored] = await getTasks(fixture, token);
    expect(stored?.start_at).toBe('2030-03-04 18:30:00 +0900');
    expect(problems).toEqual([]);
    await context.close();
  });

  // Once in four full CI runs (all 108 files at once on two cores) this test hung until its 60 s
  // timeout, never alone or under a CPU hog. Each step the browser does not bound itself is
  // bounded, so that a next time names the step; one retry keeps a rare stall from failing CI.
  it('signing out clears the browser copy and the token', { retry: 1 }, async () => {
    const token = await bounded('making the user', newUser(fixture));
    await bounded('posting a task', postTask(fixture, token, { title: 'Private' }));
    const { page, context, problems } = await openApp(fixture, token);
    await page.getByRole('checkbox', { name: 'Complete Private' }).waitFor();
    await page.getByRole('link', { name: 'Sign out' }).click();
    // No session to end (the token came from the CLI): the sign-in page shows all the same.
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    const left: unknown = await bounded(
      'reading what the browser kept',
      page.evaluate(
        `indexedDB.databases().then((all) => ({ databases: all.map((database) => database.name), token: sessionStorage.getItem(${JSON.stringify(TOKEN_STORAGE_KEY)}) }))`,
      ),
    );
    expect(left).toEqual({ databases: [], token: null });
    // The CLI's token is not the app's to revoke: it still works.
    expect((await bounded('listing through the API', getTasks(fixture, token))).map((task) => task.title)).toEqual([
      'Private',
    ]);
    expect(problems).toEqual([]);
    await bounded('closing the browser context', context.close());
  });

  it("ends the session on E401, and never shows one account's copy to another", async () => {
    const token = await newUser(fixture);
    await postTask(fixture, token, { title: 'Only mine' });
    const { page, context, problems } = await openApp(fixture, token);
    await page.getByRole('checkbox', { name: 'Complete Only mine' }).waitFor();
    // After `--`: a token may start with `-`, which would read as an option.
    const revoked = await runCli(['token', 'revoke', '--data-dir', fixture.dataDir, '--', token]);
    expect(revoked.code, revoked.stderr).toBe(0);
    await page.getByText('Your session has ended').waitFor();

    const other = await newUser(fixture);
    await postTask(fixture, other, { title: 'Somebody else' });
    await page.evaluate(`sessionStorage.setItem(${JSON.stringify(TOKEN_STORAGE_KEY)}, ${JSON.stringify(other)})`);
    await page.reload();
    await page.getByRole('checkbox', { name: 'Complete Somebody else' }).waitFor();
    expect(await page.getByRole('checkbox', { name: 'Complete Only mine' }).count()).toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  });
});
