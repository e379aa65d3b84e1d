import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { microsFromMillis } from '../../src/domain/time.js';
import { call, ENGINES, startHarness, type Harness, type User } from '../support/harness.js';

interface Page {
  entries: { id: string; title: string; start_at: string | null; rev: number }[];
  cursor: string;
  has_more: boolean;
}

/** Repeated pages are answered from the kept answer; these show it is never a stale one. */
describe.each(ENGINES)('kept list pages on %s', (engine) => {
  let harness: Harness;
  let user: User;

  beforeAll(async () => {
    harness = await startHarness(engine);
    user = await harness.newUser();
  });
  afterAll(() => harness.close());

  const get = async (url: string, headers: Record<string, string> = {}) =>
    call(harness.app, { url, token: user.token, headers });
  const post = async (body: unknown) => {
    const answer = await call(harness.app, { url: '/v1/tasks', token: user.token, body });
    expect(answer.status, answer.text).toBe(200);
  };

  it('answers a repeated page the same while nothing changes, and anew after any change', async () => {
    await post(Array.from({ length: 30 }, (_, index) => ({ id: `k${index}`, title: `kept ${index}` })));
    const first = await get('/v1/tasks?limit=50');
    const again = await get('/v1/tasks?limit=50');
    expect(again.text).toBe(first.text);

    await post({ id: 'k3', title: 'renamed' });
    const after = (await get('/v1/tasks?limit=50')).json as Page;
    expect(after.entries.find((entry) => entry.id === 'k3')?.title).toBe('renamed');
    expect(after.cursor).not.toBe((first.json as Page).cursor);
  });

  it('shows a poller exactly the changes made after its cursor, each time', async () => {
    const start = (await get('/v1/tasks?limit=100')).json as Page;
    // No limit: how a syncing client polls.
    const poll = `/v1/tasks?cursor=${start.cursor}`;
    expect(((await get(poll)).json as Page).entries).toEqual([]);
    expect(((await get(poll)).json as Page).entries).toEqual([]);
    await post({ id: 'fresh', title: 'fresh' });
    expect(((await get(poll)).json as Page).entries.map((entry) => entry.id)).toEqual(['fresh']);
  });

  it('renders kept pages in the zone the account has now', async () => {
    await post({ id: 'zoned', title: 'zoned', start_at: '2026-07-01 12:00:00 +0000' });
    const url = '/v1/tasks?limit=200';
    const utc = (await get(url)).json as Page;
    expect(utc.entries.find((entry) => entry.id === 'zoned')?.start_at).toBe('2026-07-01 12:00:00 +0000');
    const settings = await call(harness.app, {
      url: '/v1/settings',
      token: user.token,
      body: { timezone: 'Asia/Tokyo' },
    });
    expect(settings.status).toBe(200);
    const tokyo = (await get(url)).json as Page;
    expect(tokyo.entries.find((entry) => entry.id === 'zoned')?.start_at).toBe('2026-07-01 21:00:00 +0900');
  });

  it('refuses a kept cursor once a purge passed it', async () => {
    const other = await harness.newUser();
    const ask = (url: string) => call(harness.app, { url, token: other.token });
    const write = (body: unknown) => call(harness.app, { url: '/v1/tasks', token: other.token, body });
    const start = (await ask('/v1/tasks?limit=10')).json as Page;
    await write({ id: 'doomed', title: 'doomed' });
    await write({ id: 'doomed', deleted: '2026-01-01 00:00:00 +0000' });
    const poll = `/v1/tasks?limit=10&cursor=${start.cursor}`;
    expect(((await ask(poll)).json as Page).entries.map((entry) => entry.id)).toEqual(['doomed']);
    await harness.store.purge(microsFromMillis(Date.now()));
    expect((await ask(poll)).json).toMatchObject({ retcode: 'E008' });
  });

  it('sends a kept page gzip-compressed to clients that ask, plain to others', async () => {
    const url = '/v1/tasks?limit=40';
    const plain = await get(url);
    const zipped = await call(harness.app, { url, token: user.token, headers: { 'accept-encoding': 'gzip' } });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    const raw = await harness.app.inject({
      url,
      headers: { authorization: `OAuth ${user.token}`, 'accept-encoding': 'gzip' },
    });
    expect(gunzipSync(raw.rawPayload).toString('utf8')).toBe(plain.text);
    const plainAgain = await get(url);
    expect(plainAgain.headers['content-encoding']).toBeUndefined();
    expect(plainAgain.text).toBe(plain.text);
  });
});
