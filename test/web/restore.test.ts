import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAccount } from '../e2e/support/accounts.js';
import {
  cleanUpProcesses,
  E2E_TEST_TIMEOUT_MS,
  freePort,
  makeTempDir,
  runCli,
  startServe,
} from '../e2e/support/processes.js';
import { eventually, getTasks, launchChromium, openApp, postTask, type WebFixture } from './support/browser.js';

/*
 * Issue 21 item 5: the server's data is restored from a backup under an open app. The app's
 * cursor is from before the restore (E008): it lists everything once, keeps and sends the change
 * it queued meanwhile, says politely that the server's data was restored, and then goes on
 * syncing from its new cursor instead of downloading everything again every 2 s.
 */
describe('the web app when the server is restored from a backup', { timeout: E2E_TEST_TIMEOUT_MS * 2 }, () => {
  let fixture: WebFixture;
  let port: number;

  beforeAll(async () => {
    const dataDir = await makeTempDir('web-restore');
    port = await freePort();
    const [server, browser] = await Promise.all([startServe({ dataDir, http: true, port }), launchChromium()]);
    fixture = { server, dataDir, browser };
  });

  afterAll(async () => {
    await fixture?.browser.close();
    await cleanUpProcesses();
  });

  it('lists once, keeps its queue, and says the data was restored', async () => {
    const token = await newAccount({ dataDir: fixture.dataDir }, 'restored');
    for (let index = 0; index < 12; index += 1) await postTask(fixture, token, { title: `Kept ${index}` });
    const backup = path.join(await makeTempDir('web-backup'), 'backup.sqlite');
    const made = await runCli(['backup', backup, '--data-dir', fixture.dataDir]);
    expect(made.code, made.stderr).toBe(0);
    await postTask(fixture, token, { title: 'Lost' });

    const { page, context, problems } = await openApp(fixture, token);
    await page.getByRole('checkbox', { name: 'Complete Lost' }).waitFor();
    const fullListings: string[] = [];
    let polls = 0;
    let expired = 0;
    page.on('request', (sent) => {
      const url = new URL(sent.url());
      if (url.pathname !== '/v1/tasks') return;
      if (url.searchParams.has('cursor')) polls += 1;
      else fullListings.push(url.search);
    });
    page.on('response', (answer) => {
      if (new URL(answer.url()).pathname === '/v1/tasks' && answer.status() === 400) expired += 1;
    });

    await fixture.server.stop();
    await page.getByRole('status').filter({ hasText: 'offline' }).waitFor();
    const field = page.getByRole('textbox', { name: 'Add a task' });
    await field.fill('Mine, while it was down');
    await field.press('Enter');
    const restored = await runCli(['restore', backup, '--data-dir', fixture.dataDir]);
    expect(restored.code, restored.stderr).toBe(0);
    fixture = { ...fixture, server: await startServe({ dataDir: fixture.dataDir, http: true, port }) };

    const message = page.getByRole('status', { name: 'Server data restored' });
    await message.waitFor();
    expect(await message.textContent()).toContain('restored from a backup');
    await page.getByRole('checkbox', { name: 'Complete Lost' }).waitFor({ state: 'detached' });
    await page.getByRole('checkbox', { name: 'Complete Kept 11' }).waitFor();
    await page.getByRole('checkbox', { name: 'Complete Mine, while it was down' }).waitFor();
    await eventually(async () => {
      const titles = (await getTasks(fixture, token)).map((task) => task.title);
      expect(titles).toContain('Mine, while it was down');
      expect(titles).not.toContain('Lost');
    });

    // Then it syncs from its new cursor: another client's task comes with a look from it (the
    // app waits on it, web/src/live.ts), and nothing is listed again.
    const listed = fullListings.length;
    const pollsThen = polls;
    await postTask(fixture, token, { title: 'After the restore' });
    await page.getByRole('checkbox', { name: 'Complete After the restore' }).waitFor();
    await eventually(() => expect(polls).toBeGreaterThanOrEqual(pollsThen + 1));
    expect(fullListings.length).toBe(listed);
    expect(expired).toBe(1);
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  });
});
