import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanUpProcesses, E2E_TEST_TIMEOUT_MS } from '../e2e/support/processes.js';
import { newUser, openApp, postTask, startWebFixture, type WebFixture } from './support/browser.js';

describe('whole-account search, with filters, saved in the navigation', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  let fixture: WebFixture;
  beforeAll(async () => {
    fixture = await startWebFixture();
  });
  afterAll(async () => {
    await fixture?.browser.close();
    await cleanUpProcesses();
  });

  it('finds "milk" from the Inbox in Scheduled, Completed and Trash, filters, and saves a search', async () => {
    const token = await newUser(fixture);
    const today = new Date().toISOString().slice(0, 10);
    await postTask(fixture, token, { title: 'Buy milk', start_at: today, all_day: true, project: 'Home' });
    await postTask(fixture, token, { title: 'Milk receipt', completed: today });
    await postTask(fixture, token, { title: 'Old milk note', trashed: today });
    await postTask(fixture, token, { title: 'Sort mail' });
    const { page, context, problems } = await openApp(fixture, token);
    const field = page.getByRole('searchbox', { name: 'Search' });
    const results = page.getByRole('list', { name: 'Search results' });

    await field.fill('milk');
    await results.getByRole('checkbox', { name: 'Complete Buy milk' }).waitFor();
    expect(await results.getByRole('listitem').allTextContents()).toEqual([
      'Scheduled',
      expect.stringMatching(/^Buy milkin Scheduled/),
      'Completed',
      expect.stringMatching(/^Milk receiptin Completed/),
      'Trash',
      expect.stringMatching(/^Old milk notein Trash/),
    ]);
    await field.fill('milk #home due:today');
    await results.getByRole('checkbox', { name: 'Complete Milk receipt' }).waitFor({ state: 'detached' });
    expect(await results.getByRole('checkbox').count()).toBe(1);
    await field.fill('is:completed');
    await results.getByRole('checkbox', { name: 'Complete Milk receipt' }).waitFor();
    expect(await results.getByRole('checkbox').count()).toBe(1);

    await field.fill('milk #home');
    await page.getByRole('button', { name: 'Save search' }).click();
    await page.getByRole('textbox', { name: 'Search name' }).fill('Home milk');
    await page.getByRole('textbox', { name: 'Search name' }).press('Enter');
    const nav = page.getByRole('navigation');
    await nav.getByRole('link', { name: 'Inbox' }).click();
    // The view follows the hash a moment after the click (CI once read the field before it did).
    await page.getByRole('heading', { name: 'Inbox', level: 1 }).waitFor();
    expect(await field.inputValue()).toBe('');
    await nav.getByRole('link', { name: 'Home milk' }).click();
    await page.getByRole('heading', { name: 'Home milk', level: 1 }).waitFor();
    expect(await field.inputValue()).toBe('milk #home');
    await results.getByRole('checkbox', { name: 'Complete Buy milk' }).waitFor();
    // Kept over a reload, then forgotten.
    await page.reload();
    await page.getByRole('heading', { name: 'Home milk', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Forget search Home milk' }).click();
    await nav.getByRole('link', { name: 'Home milk' }).waitFor({ state: 'detached' });
    await page.getByRole('heading', { name: 'Inbox', level: 1 }).waitFor();

    await field.fill('nothing like this');
    expect(await page.getByText('No task matches, in any box.').count()).toBe(1);
    expect(problems).toEqual([]);
    await context.close();
  });
});
