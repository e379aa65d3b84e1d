import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauth, request } from '../e2e/support/http.js';
import { cleanUpProcesses, E2E_TEST_TIMEOUT_MS, makeTempDir, startServe } from '../e2e/support/processes.js';
import { audit } from './support/axe.js';
import { eventually, launchChromium, newUser, openApp, postTask, type WebFixture } from './support/browser.js';

/** A receiver on this machine: `/ok` answers 200, anything else 500; it keeps the event types. */
async function startReceiver(): Promise<{
  readonly server: Server;
  readonly origin: string;
  readonly types: string[];
}> {
  const types: string[] = [];
  const server = createServer((incoming, outgoing) => {
    let body = '';
    incoming.on('data', (chunk: Buffer) => (body += chunk.toString()));
    incoming.on('end', () => {
      const parsed: unknown = JSON.parse(body);
      if (typeof parsed === 'object' && parsed !== null && 'type' in parsed) types.push(String(parsed.type));
      outgoing.writeHead(incoming.url === '/ok' ? 200 : 500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo; // A TCP server's address is an AddressInfo.
  return { server, origin: `http://127.0.0.1:${port}`, types };
}

async function hooksOf(fixture: WebFixture, token: string): Promise<unknown[]> {
  const answer = await request(fixture.server.origin, { path: '/v1/webhooks', headers: oauth(token) });
  const body: unknown = JSON.parse(answer.text);
  return typeof body === 'object' && body !== null && 'entries' in body && Array.isArray(body.entries)
    ? body.entries
    : [];
}

/** No part of the page wider than the screen: nothing scrolls sideways. */
async function fitsWidth(page: Page): Promise<boolean> {
  return (await page.evaluate('document.scrollingElement.scrollWidth <= innerWidth')) === true;
}

describe('webhooks in Settings (API.md 4.7)', { timeout: 2 * E2E_TEST_TIMEOUT_MS }, () => {
  let fixture: WebFixture;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    const dataDir = await makeTempDir('web-hooks');
    // Private addresses allowed: the receiver is on this machine.
    const [server, browser] = await Promise.all([
      startServe({ dataDir, http: true, args: ['--webhook-allow-private'] }),
      launchChromium(),
    ]);
    fixture = { server, dataDir, browser };
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await fixture?.browser.close();
    receiver?.server.close();
    await cleanUpProcesses();
  });

  for (const width of [1280, 375]) {
    it(`adds a hook, shows its secret once and its deliveries, turns it off, deletes it, says the server's refusals (${width} px)`, async () => {
      const token = await newUser(fixture);
      const { page, context, problems } = await openApp(fixture, token);
      await page.setViewportSize({ width, height: 800 });
      await page.evaluate(`location.hash = '#/settings'`);
      const section = page.getByRole('region', { name: 'Webhooks' });
      await section.getByText('No webhooks yet.').waitFor();
      const form = section.getByRole('form', { name: 'New webhook' });
      const url = form.getByRole('textbox', { name: 'Webhook URL' });
      const status = section.getByRole('status');

      // The server's refusals, as text: a URL it does not take (E004 url), no event (E004 events).
      await url.fill('ftp://example.com/hook');
      await form.getByRole('button', { name: 'Add webhook' }).click();
      await status.filter({ hasText: 'Not added: invalid parameter: url' }).waitFor();
      await url.fill(`${receiver.origin}/ok`);
      // "All events" and single events exclude each other.
      const all = form.getByRole('checkbox', { name: 'All events' });
      const updated = form.getByRole('checkbox', { name: 'task.updated' });
      await updated.check();
      expect(await all.isChecked()).toBe(false);
      await all.check();
      expect(await updated.isChecked()).toBe(false);
      await all.uncheck();
      await form.getByRole('button', { name: 'Add webhook' }).click();
      await status.filter({ hasText: 'Not added: invalid parameter: events' }).waitFor();
      expect(await hooksOf(fixture, token)).toEqual([]);

      await form.getByRole('checkbox', { name: 'task.created' }).check();
      await form.getByRole('button', { name: 'Add webhook' }).click();
      const secret = section.getByRole('textbox', { name: /^Signing secret of/ });
      expect(await secret.inputValue()).toMatch(/^whsec_/);
      const list = section.getByRole('list', { name: 'Webhooks' });
      await list.getByText(`${receiver.origin}/ok`).waitFor();
      await list.getByText('task.created · on').waitFor();
      if (width === 375) expect(await fitsWidth(page)).toBe(true);
      await section.getByRole('button', { name: 'Done' }).click();
      await secret.waitFor({ state: 'detached' });

      const delivered = receiver.types.length;
      await postTask(fixture, token, { title: 'Sent to the hook' });
      await eventually(() => expect(receiver.types.length).toBeGreaterThan(delivered));
      const log = section.getByRole('button', { name: `Deliveries to ${receiver.origin}/ok` });
      await log.click();
      expect(await log.getAttribute('aria-expanded')).toBe('true');
      const table = section.getByRole('table', { name: `Deliveries to ${receiver.origin}/ok` });
      await table.getByRole('cell', { name: 'task.created' }).waitFor();
      await table.getByRole('cell', { name: '200', exact: true }).waitFor();
      if (width === 375) expect(await fitsWidth(page)).toBe(true);

      // Audited as it is now (a hook, its log open), in both themes.
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        expect(await audit(page)).toEqual([]);
      }
      await page.emulateMedia({ colorScheme: 'light' });

      await section.getByRole('button', { name: `Turn off ${receiver.origin}/ok` }).click();
      await status.filter({ hasText: 'turned off.' }).waitFor();
      await list.getByText('task.created · off').waitFor();
      expect(await hooksOf(fixture, token)).toMatchObject([{ active: false }]);
      await section.getByRole('button', { name: `Turn on ${receiver.origin}/ok` }).click();
      await list.getByText('task.created · on').waitFor();

      await section.getByRole('button', { name: `Delete ${receiver.origin}/ok` }).click();
      const question = page.getByRole('alertdialog', { name: 'Delete this webhook?' });
      await question.getByRole('button', { name: 'Delete webhook' }).click();
      await section.getByText('No webhooks yet.').waitFor();
      expect(await hooksOf(fixture, token)).toEqual([]);
      expect(problems).toEqual([]);
      await context.close();
    });
  }

  // The list was asked for once: refused by a busy server (the load shedder's E503), it stayed
  // "not shown" until a reload, though the server answered again a moment later.
  it('asks again for the list a busy server refused (E503), and shows it', async () => {
    const token = await newUser(fixture);
    const { page, context, problems } = await openApp(fixture, token);
    let refused = 0;
    await page.route('**/v1/webhooks', async (route) => {
      if (refused > 0) return route.continue();
      refused += 1;
      // As the service's load shedder answers (API.md's error body, E503).
      return route.fulfill({
        status: 503,
        contentType: 'application/json',
        body: JSON.stringify({ retcode: 'E503', retmsg: 'server resources are unavailable' }),
      });
    });
    await page.evaluate(`location.hash = '#/settings'`);
    const section = page.getByRole('region', { name: 'Webhooks' });
    await section.getByText('Webhooks not shown: the server cannot be reached.').waitFor();
    await section.getByText('No webhooks yet.', { exact: false }).waitFor();
    expect(await section.getByText('not shown', { exact: false }).count()).toBe(0);
    expect(refused).toBe(1);
    expect(problems).toEqual([]);
    await context.close();
  });
});
