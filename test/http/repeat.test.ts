import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, ENGINES, startHarness, type Harness, type User } from '../support/harness.js';

interface TaskAnswer {
  id: string;
  start_at: string | null;
  end_at: string | null;
  completed: string | null;
  repeater: string | null;
  rev: number;
}

describe.each(ENGINES)('repeating tasks over HTTP on %s', (engine) => {
  let harness: Harness;
  let user: User;

  beforeAll(async () => {
    harness = await startHarness(engine);
    user = await harness.newUser('Europe/Berlin');
  });
  afterAll(() => harness.close());

  const post = async (body: unknown): Promise<TaskAnswer> => {
    const answer = await call(harness.app, { url: '/v1/tasks', token: user.token, body });
    expect(answer.status, answer.text).toBe(200);
    return answer.json as TaskAnswer;
  };
  const complete = (id: string) => post({ id, completed: '2026-01-01 00:00:00 +0100' });

  it('keeps a weekly 09:00 task at 09:00 local across both DST changes, one rev per move', async () => {
    let task = await post({
      id: 'weekly',
      title: 'Team sync',
      start_at: '2026-03-22 09:00:00 +0100',
      end_at: '2026-03-22 10:30:00 +0100',
      repeater: 'FREQ=WEEKLY',
    });
    const starts: string[] = [];
    for (let step = 0; step < 32; step += 1) {
      const before = task.rev;
      task = await complete('weekly');
      expect(task.completed).toBeNull();
      expect(task.rev).toBe(before + 1);
      starts.push(`${task.start_at ?? ''}|${task.end_at ?? ''}`);
    }
    expect(starts[0]).toBe('2026-03-29 09:00:00 +0200|2026-03-29 10:30:00 +0200');
    expect(starts[31]).toBe('2026-11-01 09:00:00 +0100|2026-11-01 10:30:00 +0100');
    for (const pair of starts) expect(pair).toMatch(/^\S+ 09:00:00 \+0[12]00\|\S+ 10:30:00 \+0[12]00$/);
  });

  it('moves a monthly task on the 31st only to months that have one', async () => {
    await post({ id: 'monthly', title: 'Rent', start_at: '2026-01-31 08:00:00 +0100', repeater: 'FREQ=MONTHLY' });
    expect((await complete('monthly')).start_at).toBe('2026-03-31 08:00:00 +0200');
    expect((await complete('monthly')).start_at).toBe('2026-05-31 08:00:00 +0200');
  });

  it('ends a COUNT=3 series after the third occurrence', async () => {
    await post({ id: 'thrice', title: 'Pill', start_at: '2026-06-01 20:00:00 +0200', repeater: 'FREQ=DAILY;COUNT=3' });
    const second = await complete('thrice');
    expect([second.start_at, second.repeater, second.completed]).toEqual([
      '2026-06-02 20:00:00 +0200',
      'FREQ=DAILY;COUNT=2',
      null,
    ]);
    const third = await complete('thrice');
    expect([third.start_at, third.repeater]).toEqual(['2026-06-03 20:00:00 +0200', 'FREQ=DAILY;COUNT=1']);
    const done = await complete('thrice');
    expect(done.start_at).toBe('2026-06-03 20:00:00 +0200');
    expect(done.completed).toBe('2026-01-01 00:00:00 +0100');
  });

  it('keeps a daily all-day task at local midnight across the spring change', async () => {
    await post({ id: 'daily', title: 'Journal', all_day: true, start_at: '2026-03-28', repeater: 'FREQ=DAILY' });
    expect((await complete('daily')).start_at).toBe('2026-03-29 00:00:00 +0100');
    expect((await complete('daily')).start_at).toBe('2026-03-30 00:00:00 +0200');
  });

  it('refuses a rule it does not support and stores nothing', async () => {
    const answer = await call(harness.app, {
      url: '/v1/tasks',
      token: user.token,
      body: { id: 'bad-rule', title: 'x', repeater: 'FREQ=HOURLY' },
    });
    expect(answer.json).toMatchObject({ retcode: 'E004' });
    expect((answer.json as { retmsg: string }).retmsg).toMatch(/^invalid parameter: repeater/);
    const lookup = await call(harness.app, { url: '/v1/tasks/bad-rule', token: user.token });
    expect(lookup.json).toMatchObject({ retcode: 'E007' });
  });
});
