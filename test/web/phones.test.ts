import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUserWithPassword } from '../e2e/support/auth-server.js';
import { cleanUpProcesses, E2E_TEST_TIMEOUT_MS } from '../e2e/support/processes.js';
import { openBrowser, startWebFixture, waitForInbox, type WebFixture } from './support/browser.js';

const PASSWORD = 'correct horse battery';

describe('Settings: phones and desktop apps, in Chromium', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  let fixture: WebFixture;
  beforeAll(async () => {
    fixture = await startWebFixture();
  });
  afterAll(async () => {
    await fixture?.browser.close();
    await cleanUpProcesses();
  });

  it('shows the address and username, and makes an app password, shown once, that CalDAV takes', async () => {
    const username = `phone${process.pid}`;
    await addUserWithPassword({ dataDir: fixture.dataDir }, username, PASSWORD);
    const { page, context, problems } = await openBrowser(fixture);
    await page.goto(`${fixture.server.origin}/`);
    await page.waitForURL(/\/login\?next=/);
    await page.getByRole('textbox', { name: 'Username' }).fill(username);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await waitForInbox(page);
    await page.getByRole('link', { name: 'Settings' }).click();

    const phones = page.getByRole('region', { name: 'Phones and desktop apps' });
    expect(await phones.getByRole('textbox', { name: 'Address' }).inputValue()).toBe(`${fixture.server.origin}/dav/`);
    expect(await phones.getByRole('textbox', { name: 'Username' }).inputValue()).toBe(username);
    for (const client of [
      'DAVx5 with Tasks.org or jtx Board (Android)',
      'Thunderbird',
      'Apple Reminders (iPhone, iPad, Mac)',
    ])
      await phones.getByText(client).waitFor();

    await phones.getByRole('textbox', { name: 'Device name' }).fill('my phone');
    await phones.getByRole('button', { name: 'Make an app password' }).click();
    const shown = phones.getByRole('textbox', { name: /App password/ });
    const appPassword = await shown.inputValue();
    expect(appPassword).toMatch(/^[0-9a-f]{16}[A-Za-z0-9_-]{43}$/);

    const propfind = (password: string) =>
      fetch(`${fixture.server.origin}/dav/`, {
        method: 'PROPFIND',
        headers: { authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`, depth: '0' },
      });
    expect((await propfind(appPassword)).status).toBe(207);
    // The sign-in password is refused, and told apart: the answer says to make an app password.
    const refused = await propfind(PASSWORD);
    expect(refused.status).toBe(401);
    expect(await refused.text()).toContain('make an app password');

    await phones.getByRole('button', { name: 'Done' }).click();
    await page.reload();
    await page.getByRole('region', { name: 'Phones and desktop apps' }).waitFor();
    expect(await page.content()).not.toContain(appPassword);
    expect(problems).toEqual([]);
    await context.close();
  });
});
