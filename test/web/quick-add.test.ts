import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanUpProcesses, E2E_TEST_TIMEOUT_MS } from '../e2e/support/processes.js';
import { eventually, getTasks, newUser, openApp, startWebFixture, type WebFixture } from './support/browser.js';

describe('quick add with times, and where the task went', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  let fixture: WebFixture;
  beforeAll(async () => {
    fixture = await startWebFixture();
  });
  afterAll(async () => {
    await fixture?.browser.close();
    await cleanUpProcesses();
  });

  it('adds "^tomorrow 18:30" at that time in Scheduled, says so from the Inbox, and Show goes there', async () => {
    const token = await newUser(fixture);
    const { page, context, problems } = await openApp(fixture, token);
    // The account is in UTC: tomorrow is the UTC calendar day after today.
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const field = page.getByRole('textbox', { name: 'Add a task' });
    await field.fill('Call Ann ^tomorrow 18:30');
    await page.getByRole('button', { name: `Remove start ${tomorrow} 18:30` }).waitFor();
    await field.press('Enter');
    const message = page.getByRole('status').filter({ hasText: 'Added “Call Ann” to Scheduled' });
    await message.waitFor();
    await message.getByRole('link', { name: 'Show' }).click();
    await page.getByRole('heading', { name: 'Scheduled', level: 1 }).waitFor();
    const row = page.getByRole('listitem').filter({ has: page.getByRole('checkbox', { name: 'Complete Call Ann' }) });
    expect(await row.textContent()).toContain('start tomorrow 18:30');
    await eventually(async () => {
      expect(await getTasks(fixture, token)).toMatchObject([
        { title: 'Call Ann', attribute: 'plan', all_day: false, start_at: `${tomorrow} 18:30:00 +0000` },
      ]);
    });

    // Added where it shows: no message.
    await field.fill('Plan the trip ^in 3 days');
    await field.press('Enter');
    await page.getByRole('checkbox', { name: 'Complete Plan the trip' }).waitFor();
    expect(await page.getByRole('status').filter({ hasText: 'Added “Plan the trip”' }).count()).toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  });
});
