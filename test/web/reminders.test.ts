import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanUpProcesses, E2E_TEST_TIMEOUT_MS } from '../e2e/support/processes.js';
import { audit } from './support/axe.js';
import { newUser, openApp, postTask, startWebFixture, type WebFixture } from './support/browser.js';

/** A moment a few seconds ahead, as the wire writes it (UTC). */
function wireIn(ms: number): string {
  return `${new Date(Date.now() + ms).toISOString().slice(0, 19).replace('T', ' ')} +0000`;
}

/**
 * The page's Notification replaced by one that records what it was asked to show, allowed: a
 * headless browser draws none. Given as text: the tests are type-checked without the DOM's types.
 */
const RECORDING_NOTIFICATION = `
  window.shownNotifications = [];
  window.Notification = class {
    static permission = 'granted';
    static requestPermission() { return Promise.resolve('granted'); }
    constructor(title, options) { window.shownNotifications.push({ title, tag: options && options.tag }); }
  };
`;

describe('reminders: the open app shows one as it falls due (API.md 4.5)', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  let fixture: WebFixture;
  beforeAll(async () => {
    fixture = await startWebFixture();
  });
  afterAll(async () => {
    await fixture?.browser.close();
    await cleanUpProcesses();
  });

  it('shows it in the page when notifications are not allowed, at 375 and 1280 px', async () => {
    const token = await newUser(fixture);
    const { page, context, problems } = await openApp(fixture, token);
    await postTask(fixture, token, { title: 'Call mom', reminders: [{ at: wireIn(4000) }] });
    await page.getByRole('checkbox', { name: 'Complete Call mom' }).waitFor();
    const shown = page.getByRole('region', { name: 'Reminders' }).getByRole('alert');
    expect(await shown.count()).toBe(0);
    await shown.filter({ hasText: 'Reminder: Call mom' }).waitFor();
    for (const width of [375, 1280]) {
      await page.setViewportSize({ width, height: 800 });
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        expect(await audit(page)).toEqual([]);
      }
    }
    await page.getByRole('button', { name: 'Dismiss reminder Call mom' }).click();
    await page.getByRole('region', { name: 'Reminders' }).waitFor({ state: 'detached' });
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows a notification where allowed, for a reminder minutes before the start, once', async () => {
    const token = await newUser(fixture);
    const { page, context, problems } = await openApp(fixture, token);
    await page.addInitScript(RECORDING_NOTIFICATION);
    await page.reload();
    await page.getByRole('list', { name: 'Inbox' }).waitFor({ state: 'attached' });
    // Starts in a minute and 3 seconds; its reminder is a minute before.
    await postTask(fixture, token, {
      title: 'Dentist',
      start_at: wireIn(63_000),
      reminders: [{ before: 1, of: 'start_at' }],
    });
    await expect
      .poll(async () => page.evaluate('window.shownNotifications.map((shown) => shown.title)'), { timeout: 20_000 })
      .toEqual(['Dentist']);
    // The server's firing changes the task (a new rev), which the app hears of: no second one.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(await page.evaluate('window.shownNotifications.length')).toBe(1);
    expect(await page.getByRole('region', { name: 'Reminders' }).count()).toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  });
});
