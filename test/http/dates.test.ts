/**
 * Dates on the wire (API.md section 2): output always `%Y-%m-%d %H:%M:%S %z` in the account's
 * zone with that date's offset; every input form; the `+` that arrives as a space in a query;
 * all-day dates; date-only `updated_after` in the account's zone, strictly after.
 */
import { describe, expect, it } from 'vitest';
import { ENGINES, type User } from '../support/harness.js';
import { DATE_TIME, rfc3339Micros, wireAtOffset, type Client, type WireTask } from './support/api.js';
import { useHarness } from './support/setup.js';

const HOUR_US = 3_600_000_000;

describe.each(ENGINES)('dates on %s', (engine) => {
  const suite = useHarness(engine);

  /** The exact `updated` the store keeps for a task, in microseconds. */
  async function updatedMicros(user: User, id: string): Promise<number> {
    const task = await suite().harness.store.get(await suite().accountIdOf(user), 'task', id);
    if (task === undefined) throw new Error(`no task ${id}`);
    return task.updated;
  }

  async function startAtOf(client: Client, startAt: string, extra: Record<string, unknown> = {}): Promise<WireTask> {
    return client.createTask({ title: 'dated', start_at: startAt, ...extra });
  }

  it('writes every date-time as %Y-%m-%d %H:%M:%S %z in the account zone', async () => {
    const { client, user } = await suite().newClient('Asia/Shanghai');
    const task = await client.createTask({
      title: 't',
      start_at: '2026-11-21 09:30:00 +0800',
      end_at: '2026-11-22 18:00:00 +0800',
      completed: '2026-11-21 10:00:00 +0800',
      trashed: '2026-11-21 10:00:01 +0800',
    });
    for (const value of [task.start_at, task.end_at, task.completed, task.trashed, task.created, task.updated]) {
      expect(value).toMatch(DATE_TIME);
      expect(value?.endsWith(' +0800')).toBe(true);
    }
    expect(task.deleted).toBeNull();
    expect(task).toMatchObject({
      start_at: '2026-11-21 09:30:00 +0800',
      end_at: '2026-11-22 18:00:00 +0800',
      completed: '2026-11-21 10:00:00 +0800',
      trashed: '2026-11-21 10:00:01 +0800',
    });
    // created and updated are the server's clock, shown to the second (cut, never rounded up).
    const updated = await updatedMicros(user, task.id);
    expect(task.updated).toBe(wireAtOffset(updated, 480));
    expect(Math.abs(updated - Date.now() * 1000)).toBeLessThan(60_000_000);
  });

  it('reads each input form: +hhmm/-hhmm, a date alone in the account zone, RFC 3339 with Z or an offset', async () => {
    const { client } = await suite().newClient('Asia/Tokyo');
    const cases: [string, string][] = [
      ['2026-11-21 09:30:00 +0800', '2026-11-21 10:30:00 +0900'],
      ['2026-11-21 09:30:00 -0130', '2026-11-21 20:00:00 +0900'],
      ['2026-11-21 09:30:00 +0000', '2026-11-21 18:30:00 +0900'],
      ['2026-11-21', '2026-11-21 00:00:00 +0900'],
      ['2026-11-21T01:30:00Z', '2026-11-21 10:30:00 +0900'],
      ['2026-11-21t01:30:00z', '2026-11-21 10:30:00 +0900'],
      ['2026-11-21T09:30:00+08:00', '2026-11-21 10:30:00 +0900'],
      ['2026-11-20T20:30:00-05:00', '2026-11-21 10:30:00 +0900'],
      ['2026-11-21T01:30:00.999999Z', '2026-11-21 10:30:00 +0900'],
      ['2024-02-29', '2024-02-29 00:00:00 +0900'],
      ['1999-12-31 23:59:59 +0000', '2000-01-01 08:59:59 +0900'],
    ];
    for (const [input, output] of cases) {
      expect((await startAtOf(client, input)).start_at, input).toBe(output);
    }
  });

  it('refuses impossible dates instead of rolling them over', async () => {
    const { client } = await suite().newClient('Asia/Tokyo');
    for (const input of ['2026-02-30', '2026-02-29', '2026-04-31', '2026-11-21T25:00:00Z', '2026-00-10']) {
      const answer = await client.post('/v1/tasks', { title: 't', start_at: input });
      expect(answer.json, input).toMatchObject({
        retcode: 'E004',
        retmsg: expect.stringMatching(/^invalid parameter: start_at/),
      });
    }
  });

  it('refuses dates the store cannot keep to the microsecond, and takes the edges of that span', async () => {
    const { client } = await suite().newClient('UTC');
    for (const input of [
      '9999-12-31 23:59:59 -2359',
      '0001-01-01',
      '2300-01-01',
      '1600-01-01T00:00:00Z',
      '2255-06-06',
    ]) {
      const answer = await client.post('/v1/tasks', { title: 't', start_at: input });
      expect(answer.json, input).toMatchObject({
        retcode: 'E004',
        retmsg: expect.stringMatching(/^invalid parameter: start_at/),
      });
      const project = await client.post('/v1/projects', { name: `p ${input}`, archived: input });
      expect(project.json, input).toMatchObject({
        retcode: 'E004',
        retmsg: expect.stringMatching(/^invalid parameter: archived/),
      });
    }
    expect((await startAtOf(client, '2255-06-05')).start_at).toBe('2255-06-05 00:00:00 +0000');
    expect((await startAtOf(client, '1684-07-29')).start_at).toBe('1684-07-29 00:00:00 +0000');
    expect((await client.listTasks()).entries).toHaveLength(2);
  });

  it('shows Europe/Berlin at +0100 in January and +0200 in July, whatever offset came in', async () => {
    const { client } = await suite().newClient('Europe/Berlin');
    expect((await startAtOf(client, '2026-01-15 12:00:00 +0000')).start_at).toBe('2026-01-15 13:00:00 +0100');
    expect((await startAtOf(client, '2026-07-15T12:00:00Z')).start_at).toBe('2026-07-15 14:00:00 +0200');
    expect((await startAtOf(client, '2026-07-15 14:00:00 +0200')).start_at).toBe('2026-07-15 14:00:00 +0200');
    // A date alone is midnight in the account zone on either side of the change of offset.
    expect((await startAtOf(client, '2026-03-29')).start_at).toBe('2026-03-29 00:00:00 +0100');
    expect((await startAtOf(client, '2026-03-30')).start_at).toBe('2026-03-30 00:00:00 +0200');
    expect((await startAtOf(client, '2026-10-25')).start_at).toBe('2026-10-25 00:00:00 +0200');
    // The hour after the spring change: 01:59:59 +0100 is followed by 03:00:00 +0200.
    expect((await startAtOf(client, '2026-03-29T00:59:59Z')).start_at).toBe('2026-03-29 01:59:59 +0100');
    expect((await startAtOf(client, '2026-03-29T01:00:00Z')).start_at).toBe('2026-03-29 03:00:00 +0200');
  });

  it('keeps all-day dates at local midnight of their day', async () => {
    const { client } = await suite().newClient('Asia/Tokyo');
    const task = await client.createTask({
      title: 'all day',
      all_day: true,
      start_at: '2026-11-21 15:45:10 +0900',
      end_at: '2026-11-20T20:00:00Z',
    });
    expect(task).toMatchObject({
      all_day: true,
      start_at: '2026-11-21 00:00:00 +0900',
      end_at: '2026-11-21 00:00:00 +0900',
    });
    const moved = await client.createTask({ id: task.id, end_at: '2026-11-23 23:59:59 +0900' });
    expect(moved).toMatchObject({ start_at: '2026-11-21 00:00:00 +0900', end_at: '2026-11-23 00:00:00 +0900' });
    const dateOnly = await client.createTask({ title: 'd', all_day: true, start_at: '2026-12-31' });
    expect(dateOnly.start_at).toBe('2026-12-31 00:00:00 +0900');
    // Turning all_day on snaps the dates the task already has.
    const timed = await client.createTask({ title: 'timed', start_at: '2026-05-05 17:30:00 +0900' });
    expect((await client.createTask({ id: timed.id, all_day: true })).start_at).toBe('2026-05-05 00:00:00 +0900');
  });

  it('keeps all-day midnights in a zone with a change of offset', async () => {
    const { client } = await suite().newClient('Europe/Berlin');
    const task = await client.createTask({
      title: 'd',
      all_day: true,
      start_at: '2026-03-29 12:00:00 +0200',
      end_at: '2026-10-25 23:00:00 +0100',
    });
    expect(task).toMatchObject({ start_at: '2026-03-29 00:00:00 +0100', end_at: '2026-10-25 00:00:00 +0200' });
  });

  describe('updated_after', () => {
    /** Three tasks and their exact `updated` in microseconds. */
    async function threeTasks(timezone: string): Promise<{ client: Client; tasks: WireTask[]; micros: number[] }> {
      const { client, user } = await suite().newClient(timezone);
      const tasks = [
        await client.createTask({ title: 'a' }),
        await client.createTask({ title: 'b' }),
        await client.createTask({ title: 'c' }),
      ];
      const micros = await Promise.all(tasks.map((task) => updatedMicros(user, task.id)));
      return { client, tasks, micros };
    }

    async function titlesAfter(client: Client, rawQueryValue: string): Promise<string[]> {
      return (await client.listTasks(`updated_after=${rawQueryValue}`)).entries.map((task) => task.title);
    }

    it('is strictly after, to the microsecond', async () => {
      const { client, tasks, micros } = await threeTasks('UTC');
      const [first, second] = micros;
      if (first === undefined || second === undefined) throw new Error('three tasks expected');
      expect(await titlesAfter(client, rfc3339Micros(second))).toEqual(['c']);
      expect(await titlesAfter(client, rfc3339Micros(second - 1))).toEqual(['b', 'c']);
      expect(await titlesAfter(client, rfc3339Micros(first - 1))).toEqual(['a', 'b', 'c']);
      expect(tasks).toHaveLength(3);
    });

    it('reads an unencoded + in the query string as the offset sign', async () => {
      const { client, micros } = await threeTasks('Asia/Shanghai');
      const second = micros[1];
      if (second === undefined) throw new Error('three tasks expected');
      // A moment to the second, just before task b (or at it, one time in a million).
      const cut = Math.floor(second / 1_000_000) * 1_000_000;
      const expected = ['a', 'b', 'c'].filter((_, index) => (micros[index] ?? 0) > cut);
      const wire = wireAtOffset(cut, 480);
      const [date, time] = wire.split(' ');
      expect(wire).toMatch(/\+0800$/);
      for (const raw of [
        `${date}+${time}+0800`,
        `${date}%20${time}%20+0800`,
        `${date}%20${time}%20%2B0800`,
        encodeURIComponent(wire),
        encodeURIComponent(rfc3339Micros(cut)),
      ]) {
        expect(await titlesAfter(client, raw), raw).toEqual(expected);
      }
      // The same wall time at -0800 is 16 hours later: nothing was updated after it.
      expect(await titlesAfter(client, `${date}+${time}+-0800`)).toEqual([]);
      expect(await titlesAfter(client, `${date}%20${time}%20-0800`)).toEqual([]);
    });

    it('reads the example of the contract, 2026-11-21 09:30:00 0800, as +0800', async () => {
      const { client } = await suite().newClient('UTC');
      const task = await client.createTask({ title: 'now' });
      const afterExample = await client.listTasks('updated_after=2026-11-21+09:30:00+0800');
      const nowUs = Date.now() * 1000;
      const example = Date.UTC(2026, 10, 21, 1, 30) * 1000;
      expect(afterExample.entries.map((entry) => entry.id)).toEqual(nowUs > example ? [task.id] : []);
    });

    it('reads a date alone as midnight in the account zone (Asia/Tokyo)', async () => {
      const { client, micros } = await threeTasks('Asia/Tokyo');
      const first = micros[0];
      if (first === undefined) throw new Error('three tasks expected');
      const tokyoToday = wireAtOffset(first, 540).slice(0, 10);
      const tokyoMidnight = Date.parse(`${tokyoToday}T00:00:00+09:00`) * 1000;
      expect(first).toBeGreaterThan(tokyoMidnight);
      // Updated after local midnight today: included.
      expect(await titlesAfter(client, tokyoToday)).toEqual(['a', 'b', 'c']);
      // The next local day has not begun for any of them.
      const tomorrow = wireAtOffset(tokyoMidnight + 30 * HOUR_US, 540).slice(0, 10);
      expect(await titlesAfter(client, tomorrow)).toEqual([]);
      // The exact instant the date stands for: the same answer as its full form.
      expect(await titlesAfter(client, `${tokyoToday}+00:00:00+0900`)).toEqual(['a', 'b', 'c']);
      const created = await client.createTask({ title: 'dated', start_at: tokyoToday });
      expect(created.start_at).toBe(`${tokyoToday} 00:00:00 +0900`);
    });

    it('reads a date alone in the zone of the account that asks', async () => {
      // Two accounts, the same date: Tokyo's midnight comes 9 hours before UTC's, and a task
      // updated between the two is in one answer and not the other. Which side "now" falls on
      // depends on the clock, so the expectation is computed from the exact stored time.
      const { client: tokyo, micros } = await threeTasks('Asia/Tokyo');
      const first = micros[0];
      if (first === undefined) throw new Error('three tasks expected');
      const utcDate = wireAtOffset(first, 0).slice(0, 10);
      const tokyoMidnight = Date.parse(`${utcDate}T00:00:00+09:00`) * 1000;
      expect(await titlesAfter(tokyo, utcDate)).toEqual(first > tokyoMidnight ? ['a', 'b', 'c'] : []);
      const nextUtcDate = wireAtOffset(first + 24 * HOUR_US, 0).slice(0, 10);
      const nextTokyoMidnight = Date.parse(`${nextUtcDate}T00:00:00+09:00`) * 1000;
      expect(await titlesAfter(tokyo, nextUtcDate)).toEqual(first > nextTokyoMidnight ? ['a', 'b', 'c'] : []);
    });
  });
});
