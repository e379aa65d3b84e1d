import { createServer, request as forward, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauth, request } from '../e2e/support/http.js';
import { cleanUpProcesses, E2E_TEST_TIMEOUT_MS } from '../e2e/support/processes.js';
import {
  openApp,
  openBrowser,
  newUser,
  postTask,
  startWebFixture,
  TOKEN_STORAGE_KEY,
  waitForInbox,
  type WebFixture,
} from './support/browser.js';

/** A generous bound on the machine's load; which request brought a change is checked apart. */
const SHOWS_WITHIN_MS = 10_000;
/** The app's round while it polls (web/src/live.ts POLL_MS). */
const POLL_MS = 2000;

/** Whether a request to the service is a waiting list call. */
function isWait(url: string): boolean {
  return new URL(url, 'http://x').searchParams.has('wait');
}

/**
 * A reverse proxy in front of the service that answers every waiting request with a 504 after
 * 200 ms, as one with a short read timeout does; everything else it passes on.
 */
async function startCuttingProxy(
  target: string,
): Promise<{ readonly server: Server; readonly origin: string; readonly waits: string[] }> {
  const waits: string[] = [];
  const to = new URL(target);
  const server = createServer((incoming, outgoing) => {
    if (isWait(incoming.url ?? '')) {
      waits.push(incoming.url ?? '');
      setTimeout(
        () => outgoing.writeHead(504, { 'content-type': 'text/html' }).end('<h1>504 Gateway Time-out</h1>'),
        200,
      );
      return;
    }
    const passed = forward(
      {
        host: to.hostname,
        port: to.port,
        path: incoming.url,
        method: incoming.method,
        headers: { ...incoming.headers, host: to.host },
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    passed.on('error', () => outgoing.destroy());
    incoming.pipe(passed);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo; // A TCP server's address is an AddressInfo.
  return { server, origin: `http://127.0.0.1:${port}`, waits };
}

describe('live: the app waits for changes (API.md 4.6)', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  let fixture: WebFixture;
  beforeAll(async () => {
    fixture = await startWebFixture();
  });
  afterAll(async () => {
    await fixture?.browser.close();
    await cleanUpProcesses();
  });

  it('shows a task made through /v1 as soon as the server hears of it, without a reload', async () => {
    const token = await newUser(fixture);
    const { page, context, problems } = await openApp(fixture, token);
    const waits: string[] = [];
    const waitAnswers: string[] = [];
    // The waits in flight that this test saw start (one may have started before it listened).
    const inFlight = new Set<Request>();
    page.on('request', (sent) => {
      if (!isWait(sent.url())) return;
      waits.push(sent.url());
      inFlight.add(sent);
    });
    const answered = (done: Request): void => {
      inFlight.delete(done);
    };
    page.on('requestfinished', answered);
    page.on('requestfailed', answered);
    page.on('response', (answer) => {
      if (isWait(answer.url()))
        void answer.text().then(
          (text) => waitAnswers.push(text),
          () => undefined,
        );
    });
    // A held wait answers the change itself (not a wait running out, then a round). A change made
    // just as a wait ran out comes with the round instead: then another one is made.
    let broughtByWait = false;
    for (let attempt = 1; attempt <= 3 && !broughtByWait; attempt += 1) {
      await expect.poll(() => inFlight.size, { timeout: SHOWS_WITHIN_MS }).toBeGreaterThan(0);
      const title = `Made elsewhere ${attempt}`;
      const sent = Date.now();
      await postTask(fixture, token, { title });
      await page.getByRole('checkbox', { name: `Complete ${title}` }).waitFor({ timeout: SHOWS_WITHIN_MS });
      console.log(`live: a task made through /v1 showed after ${Date.now() - sent} ms`);
      // Its answer's text is read after the checkbox shows: give it a moment.
      await expect
        .poll(() => inFlight.size > 0 || waitAnswers.some((text) => text.includes(title)), { timeout: SHOWS_WITHIN_MS })
        .toBe(true);
      broughtByWait = waitAnswers.some((text) => text.includes(title));
    }
    expect(broughtByWait).toBe(true);
    expect(waits.length).toBeGreaterThan(0);
    expect(waits.every((url) => new URL(url).searchParams.get('wait') === '4')).toBe(true);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows a project made elsewhere at once: its change answers the wait held on tasks', async () => {
    const token = await newUser(fixture);
    const { page, context, problems } = await openApp(fixture, token);
    const started: Request[] = [];
    page.on('request', (sent) => {
      if (isWait(sent.url())) started.push(sent);
    });
    // Made 0.5 s into a wait (once the server holds it), the project answers that wait long before
    // its 4 s run out. A wait not yet held when the change came runs out instead: tried again.
    let answeredMs = Number.POSITIVE_INFINITY;
    for (let attempt = 1; attempt <= 3 && answeredMs >= 2000; attempt += 1) {
      const before = started.length;
      await expect.poll(() => started.length, { timeout: SHOWS_WITHIN_MS }).toBeGreaterThan(before);
      const wait = started[started.length - 1];
      await new Promise((resolve) => setTimeout(resolve, 500));
      const sent = Date.now();
      const name = `Garden ${attempt}`;
      await request(fixture.server.origin, { path: '/v1/projects', headers: oauth(token), body: { name } });
      await wait?.response();
      answeredMs = Date.now() - sent;
      await page
        .getByRole('navigation')
        .getByRole('link', { name: new RegExp(name) })
        .waitFor({ timeout: SHOWS_WITHIN_MS });
      console.log(`live: a project made through /v1 answered the wait after ${answeredMs} ms`);
    }
    expect(answeredMs).toBeLessThan(2000);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('two tabs of one account share one held wait, and both show a change made elsewhere', async () => {
    const token = await newUser(fixture);
    const { page, context, problems } = await openApp(fixture, token);
    const second = await context.newPage();
    second.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    // Its own tab, its own session storage: the token is put there as openApp does.
    await second.goto(`${fixture.server.origin}/login`);
    await second.evaluate(`sessionStorage.setItem(${JSON.stringify(TOKEN_STORAGE_KEY)}, ${JSON.stringify(token)})`);
    await second.goto(`${fixture.server.origin}/`);
    await waitForInbox(second);
    // Waits held by the two tabs together, at most: the browser's six connections stay free. The
    // waits held before the first change are not all seen; those after it are.
    const held = new Set<Request>();
    let most = 0;
    let counting = false;
    context.on('request', (sent) => {
      if (!isWait(sent.url())) return;
      held.add(sent);
      if (counting) most = Math.max(most, held.size);
    });
    const ended = (sent: Request): void => void held.delete(sent);
    context.on('requestfinished', ended);
    context.on('requestfailed', ended);
    for (const title of ['First elsewhere', 'Second elsewhere']) {
      await postTask(fixture, token, { title });
      for (const tab of [page, second]) {
        await tab.getByRole('checkbox', { name: `Complete ${title}` }).waitFor({ timeout: SHOWS_WITHIN_MS });
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
      counting = true;
    }
    expect(most).toBe(1);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('polls when a proxy cuts its waits, and changes made elsewhere still show', async () => {
    const token = await newUser(fixture);
    const proxy = await startCuttingProxy(fixture.server.origin);
    try {
      const { page, context, problems } = await openBrowser(fixture);
      await page.goto(`${proxy.origin}/login`);
      await page.evaluate(`sessionStorage.setItem(${JSON.stringify(TOKEN_STORAGE_KEY)}, ${JSON.stringify(token)})`);
      await page.goto(`${proxy.origin}/`);
      await waitForInbox(page);
      // Three cut waits in a row, then polling: no more waits for minutes.
      await expect.poll(() => proxy.waits.length, { timeout: SHOWS_WITHIN_MS }).toBe(3);
      const lists: string[] = [];
      page.on('request', (sent) => {
        if (new URL(sent.url()).pathname === '/v1/tasks') lists.push(sent.url());
      });
      await postTask(fixture, token, { title: 'Made behind a proxy' });
      await page.getByRole('checkbox', { name: 'Complete Made behind a proxy' }).waitFor({ timeout: SHOWS_WITHIN_MS });
      // No more waits once it polls. A round refused meanwhile (E503 on a busy machine) is not a
      // reached one, so it may have taken a fourth cut wait to get there.
      const cut = proxy.waits.length;
      expect(cut).toBeGreaterThanOrEqual(3);
      await new Promise((resolve) => setTimeout(resolve, 3 * POLL_MS));
      expect(proxy.waits.length).toBe(cut);
      expect(lists.length).toBeGreaterThan(0);
      expect(lists.some(isWait)).toBe(false);
      // Nothing says "offline": the server is reached, only its waits are cut.
      expect(await page.getByRole('status').filter({ hasText: 'offline' }).count()).toBe(0);
      expect(problems).toEqual([]);
      await context.close();
    } finally {
      proxy.server.closeAllConnections();
      await new Promise((resolve) => proxy.server.close(resolve));
    }
  });
});
