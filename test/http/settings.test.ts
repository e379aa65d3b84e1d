/**
 * Settings (API.md section 4.3): the fields, what POST may change, zone validation, the
 * `user_timezone` label, and dates rendered in the account's current zone.
 */
import { describe, expect, it } from 'vitest';
import { ENGINES } from '../support/harness.js';
import { DATE_TIME, expectInvalid, ok, unescapeAll, wireSettings } from './support/api.js';
import { useHarness } from './support/setup.js';

describe.each(ENGINES)('settings on %s', (engine) => {
  const suite = useHarness(engine);

  it('shows the account: id, username, account, nickname, zones, language, week_start, dates', async () => {
    const { client, user } = await suite().newClient('Asia/Shanghai');
    const settings = await client.settings();
    expect(settings).toEqual({
      id: String(await suite().accountIdOf(user)),
      username: user.username,
      account: user.username,
      nickname: user.username,
      timezone: 'Asia/Shanghai',
      user_timezone: '(GMT+08:00) Asia/Shanghai',
      language: 'en',
      week_start: 1,
      created: expect.stringMatching(/ \+0800$/),
      updated: expect.stringMatching(/ \+0800$/),
    });
    expect(settings.created).toMatch(DATE_TIME);
  });

  it('writes user_timezone with the offset now, minutes included', async () => {
    const labels: [string, string][] = [
      ['UTC', '(GMT+00:00) UTC'],
      ['Asia/Kolkata', '(GMT+05:30) Asia/Kolkata'],
      ['Asia/Kathmandu', '(GMT+05:45) Asia/Kathmandu'],
      ['America/Caracas', '(GMT-04:00) America/Caracas'],
      ['Pacific/Kiritimati', '(GMT+14:00) Pacific/Kiritimati'],
    ];
    for (const [zone, label] of labels) {
      const { client } = await suite().newClient(zone);
      expect((await client.settings()).user_timezone).toBe(label);
    }
  });

  it('changes nickname, timezone, language and week_start, and answers the new settings', async () => {
    const { client } = await suite().newClient();
    const before = await client.settings();
    const answer = ok(
      await client.post('/v1/settings', {
        nickname: 'Ada',
        timezone: 'Asia/Shanghai',
        language: 'zh-CN',
        week_start: 0,
      }),
      wireSettings,
    );
    expect(answer).toMatchObject({
      id: before.id,
      username: before.username,
      nickname: 'Ada',
      timezone: 'Asia/Shanghai',
      user_timezone: '(GMT+08:00) Asia/Shanghai',
      language: 'zh-CN',
      week_start: 0,
    });
    expect(answer.updated).toMatch(/ \+0800$/);
    expect(await client.settings()).toEqual(answer);

    const partial = ok(await client.post('/v1/settings', { week_start: 6 }), wireSettings);
    expect(partial).toMatchObject({ nickname: 'Ada', timezone: 'Asia/Shanghai', language: 'zh-CN', week_start: 6 });
  });

  it('takes the settings posted back whole; read-only fields are ignored', async () => {
    const { client, user } = await suite().newClient('Asia/Shanghai');
    const current = await client.settings();
    const back = unescapeAll({
      ...current,
      nickname: 'Renamed',
      username: 'someone-else',
      id: '999',
      user_timezone: '(GMT+01:00) X',
    });
    const answer = ok(await client.post('/v1/settings', back), wireSettings);
    expect(answer).toMatchObject({
      id: current.id,
      username: user.username,
      nickname: 'Renamed',
      user_timezone: '(GMT+08:00) Asia/Shanghai',
    });
  });

  it('refuses a zone that is no IANA name, and other bad values, changing nothing', async () => {
    const { client } = await suite().newClient('Asia/Tokyo');
    const before = await client.settings();
    for (const timezone of ['Mars/Olympus_Mons', 'asia/tokyo', '+08:00', 'GMT+8', '', 'Asia/Tokyo ', 8]) {
      expectInvalid(await client.post('/v1/settings', { timezone }), 'timezone');
    }
    for (const week_start of [7, -1, '1', 1.5]) {
      expectInvalid(await client.post('/v1/settings', { week_start }), 'week_start');
    }
    expectInvalid(await client.post('/v1/settings', { nickname: 5 }), 'nickname');
    expectInvalid(await client.post('/v1/settings', { language: '' }), 'language');
    expectInvalid(await client.post('/v1/settings', { language: 'x'.repeat(36) }), 'language');
    expectInvalid(await client.post('/v1/settings', { nickname: 'x'.repeat(101) }), 'nickname');
    expectInvalid(await client.post('/v1/settings', { nickname: 'ok', timezone: 'Nowhere/City' }), 'timezone');
    expectInvalid(await client.post('/v1/settings', [{ nickname: 'x' }]), 'body');
    expect(await client.settings()).toEqual(before);
  });

  it('renders dates in the new zone after a timezone change, and reads dates alone there', async () => {
    const { client } = await suite().newClient('Asia/Shanghai');
    const task = await client.createTask({ title: 't', start_at: '2026-07-01', end_at: '2026-11-21 09:30:00 +0800' });
    expect(task).toMatchObject({ start_at: '2026-07-01 00:00:00 +0800', end_at: '2026-11-21 09:30:00 +0800' });

    await client.post('/v1/settings', { timezone: 'UTC' });
    expect(await client.getTask(task.id)).toMatchObject({
      start_at: '2026-06-30 16:00:00 +0000',
      end_at: '2026-11-21 01:30:00 +0000',
    });

    const settings = ok(await client.post('/v1/settings', { timezone: 'America/New_York' }), wireSettings);
    expect(settings.user_timezone).toMatch(/^\(GMT-0[45]:00\) America\/New_York$/);
    expect(settings.created).toMatch(/ -0[45]00$/);
    const listed = (await client.listTasks()).entries[0];
    expect(listed).toMatchObject({ start_at: '2026-06-30 12:00:00 -0400', end_at: '2026-11-20 20:30:00 -0500' });
    expect(listed?.created).toMatch(/ -0[45]00$/);

    const dated = await client.createTask({ title: 'd', start_at: '2026-11-21' });
    expect(dated.start_at).toBe('2026-11-21 00:00:00 -0500');
  });
});
