import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, ENGINES, startHarness, type Harness, type User } from '../support/harness.js';

describe.each(ENGINES)('Idempotency-Key on %s', (engine) => {
  let harness: Harness;
  let user: User;

  beforeAll(async () => {
    harness = await startHarness(engine);
    user = await harness.newUser();
  });
  afterAll(() => harness.close());

  const post = (body: unknown, key: string | undefined, token = user.token) =>
    call(harness.app, {
      url: '/v1/tasks',
      token,
      body,
      ...(key === undefined ? {} : { headers: { 'idempotency-key': key } }),
    });

  const listAll = async () =>
    (await call(harness.app, { url: '/v1/tasks', token: user.token })).json as { entries: { id: string }[] };

  it('replays the first answer to a retry and changes nothing', async () => {
    const before = (await listAll()).entries.length;
    const first = await post({ title: 'pay rent' }, 'retry-1');
    expect(first.status).toBe(200);
    const again = await post({ title: 'pay rent' }, 'retry-1');
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    expect((await listAll()).entries.length).toBe(before + 1);
  });

  it('refuses the same key with another body and stores nothing', async () => {
    await post({ title: 'one' }, 'retry-2');
    const before = await listAll();
    const other = await post({ title: 'two' }, 'retry-2');
    expect(other.status).toBe(400);
    expect(other.json).toEqual({
      retcode: 'E004',
      retmsg: 'invalid parameter: Idempotency-Key (used for another request)',
      reqdata: '{&quot;title&quot;:&quot;two&quot;}',
    });
    expect(await listAll()).toEqual(before);
  });

  it('keeps keys per account', async () => {
    const other = await harness.newUser();
    const mine = await post({ title: 'mine' }, 'shared-key');
    const theirs = await post({ title: 'theirs' }, 'shared-key', other.token);
    expect(theirs.status).toBe(200);
    expect((theirs.json as { title: string }).title).toBe('theirs');
    expect(mine.text).not.toBe(theirs.text);
  });

  it('does not keep an error: the corrected retry runs', async () => {
    const failed = await post({ title: '' }, 'retry-3');
    expect((failed.json as { retcode: string }).retcode).toBe('E004');
    const fixed = await post({ title: '' }, 'retry-3');
    expect((fixed.json as { retcode: string }).retcode).toBe('E004');
    const ok = await post({ title: 'now right' }, 'retry-4');
    expect(ok.status).toBe(200);
  });

  it('replays array answers too', async () => {
    const body = [{ title: 'a' }, { title: 'b' }];
    const first = await post(body, 'retry-5');
    const again = await post(body, 'retry-5');
    expect(again.text).toBe(first.text);
    expect((first.json as { entries: unknown[] }).entries).toHaveLength(2);
  });

  it('refuses an empty or overlong key', async () => {
    const long = await post({ title: 'x' }, 'k'.repeat(201));
    expect(long.json).toMatchObject({
      retcode: 'E004',
      retmsg: 'invalid parameter: Idempotency-Key (1-200 characters)',
    });
  });

  it('replays the first answer byte for byte after the account changed zone and the task changed', async () => {
    const zoned = await harness.newUser('Asia/Shanghai');
    const body = [{ id: 'zoned-1', title: 'Tom & Jerry <3', start_at: '2026-11-23 09:00:00 +0800', tags: ['a"b'] }];
    const keyed = () =>
      call(harness.app, { url: '/v1/tasks', token: zoned.token, body, headers: { 'idempotency-key': 'tz-1' } });
    const first = await keyed();
    expect(first.status).toBe(200);
    expect(first.text).toContain('+0800');
    const moved = await call(harness.app, {
      url: '/v1/settings',
      token: zoned.token,
      body: { timezone: 'America/New_York' },
    });
    expect(moved.status).toBe(200);
    const renamed = await call(harness.app, {
      url: '/v1/tasks',
      token: zoned.token,
      body: { id: 'zoned-1', title: 'x' },
    });
    expect(renamed.status).toBe(200);
    const again = await keyed();
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
  });
});
