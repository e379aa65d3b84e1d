import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ENGINES, startHarness, type Harness } from '../support/harness.js';
import { CLIENT_BODIES, JTX_BOARD_EMPTY_COPIES } from './fixtures/clients.js';
import { dav, precondition, unfoldedLines, type DavUser } from './support.js';

/** The lines of the VTODO of an iCalendar text, unfolded, BEGIN:VTODO and END:VTODO left out. */
function todoLines(text: string): string[] {
  const lines = unfoldedLines(text);
  return lines.slice(lines.indexOf('BEGIN:VTODO') + 1, lines.lastIndexOf('END:VTODO'));
}

/** What the server sets itself on every write: a client's values of these are not kept. */
const SERVER_SET = /^(DTSTAMP|CREATED|LAST-MODIFIED)[;:]/;

const wireTask = z.looseObject({
  id: z.string(),
  title: z.string(),
  priority: z.number(),
  all_day: z.boolean(),
  start_at: z.string().nullable(),
  end_at: z.string().nullable(),
  repeater: z.string().nullable(),
  tags: z.array(z.string()),
});

describe.each(ENGINES)('VTODO bodies of real clients, replayed byte for byte (%s)', (engine) => {
  let harness: Harness;
  let user: DavUser;
  beforeAll(async () => {
    harness = await startHarness(engine, { app: { caldav: true } });
    user = await harness.newUser('Europe/Berlin');
  });
  afterAll(async () => {
    await harness.close();
  });
  const inbox = () => `/dav/calendars/${user.username}/inbox/`;
  const task = async (id: string) => {
    const response = await harness.app.inject({
      method: 'GET',
      url: `/v1/tasks/${id}`,
      headers: { authorization: `Bearer ${user.token}` },
    });
    return wireTask.parse(JSON.parse(response.body));
  };

  it('stores each, answers with its ETag, and serves every line it sent back', async () => {
    for (const { client, name, body } of CLIENT_BODIES) {
      const put = await dav(harness.app, user, { method: 'PUT', url: `${inbox()}${name}`, body });
      expect(put.status, `${client}: ${put.text}`).toBe(201);
      expect(put.headers['etag'], client).toMatch(/^"\d+"$/);
      const served = todoLines((await dav(harness.app, user, { method: 'GET', url: `${inbox()}${name}` })).text);
      for (const line of todoLines(body).filter((each) => !SERVER_SET.test(each)))
        expect(served, client).toContain(line);
    }
  });

  it('maps what it can: priorities, all-day dates, zones, floating times, repeats', async () => {
    expect(await task('93a0e54d-545f-49f0-8e06-3a4c9e02d8e8')).toMatchObject({ title: 'Bestellen', priority: 2 });
    expect(await task('FCC55C22-6C52-432C-8684-D82A49F77590')).toMatchObject({
      title: 'Оплата офиса',
      all_day: true,
      start_at: '2026-09-19 00:00:00 +0200',
      end_at: '2026-09-19 00:00:00 +0200',
      repeater: 'FREQ=MONTHLY',
    });
    // 18:00 in Berlin, served in the account's zone (Berlin too).
    expect((await task('A1B2C3')).end_at).toBe('2026-10-12 18:00:00 +0200');
    // Floating times are the account's wall clock.
    expect((await task('080c8a25-1667-4332-a0c7-bf48c669f209')).start_at).toBe('2026-04-12 07:00:00 +0200');
    expect((await task('c395d15b-f769-41ea-b5b3-f0d5596d9b5c')).priority).toBe(3);
  });

  it('still serves every line after the tasks are changed through /v1', async () => {
    for (const { client, name, body } of CLIENT_BODIES) {
      const id = name.replace(/\.ics$/, '');
      const changed = await harness.app.inject({
        method: 'POST',
        url: '/v1/tasks',
        headers: { authorization: `Bearer ${user.token}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ id, tags: ['from-the-web'] }),
      });
      expect(changed.statusCode, changed.body).toBe(200);
      const served = todoLines((await dav(harness.app, user, { method: 'GET', url: `${inbox()}${name}` })).text);
      expect(served, client).toContain('CATEGORIES:from-the-web');
      for (const line of todoLines(body).filter((each) => !SERVER_SET.test(each)))
        expect(served, client).toContain(line);
    }
  });

  it('refuses the empty copies jtx Board once sent, storing nothing of them', async () => {
    const other = await harness.newUser();
    const put = await dav(harness.app, other, {
      method: 'PUT',
      url: `/dav/calendars/${other.username}/inbox/${JTX_BOARD_EMPTY_COPIES.name}`,
      body: JTX_BOARD_EMPTY_COPIES.body,
    });
    expect(put.status).toBe(403);
    expect(precondition(put)).toBe('valid-calendar-object-resource');
  });
});
