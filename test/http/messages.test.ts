/**
 * Error messages a client developer can act on (issue #10, item 9): each E004 names what was
 * expected, within the contract's error body (`invalid parameter: <field> (<reason>)`).
 */
import { describe, expect, it } from 'vitest';
import { ENGINES } from '../support/harness.js';
import { expectError, invalidParameter } from './support/api.js';
import { useHarness } from './support/setup.js';

const DATE_FORMAT = 'expected YYYY-MM-DD HH:MM:SS +hhmm, YYYY-MM-DD or RFC 3339 YYYY-MM-DDTHH:MM:SSZ';

describe.each(ENGINES)('error messages name what was expected on %s', (engine) => {
  const suite = useHarness(engine);

  it('a date-time field that is not one, or not a string, names the format', async () => {
    const { client } = await suite().newClient();
    for (const [field, value] of [
      ['start_at', 'tomorrow'],
      ['end_at', 20261123],
      ['completed', '2026-11-23 25:00:00 +0100'],
      ['deleted', true],
    ] as const) {
      const answer = await client.post('/v1/tasks', {
        title: 'dated',
        start_at: '2026-11-23 09:00:00 +0000',
        [field]: value,
      });
      expectError(answer, { status: 400, retcode: 'E004', retmsg: `invalid parameter: ${field} (${DATE_FORMAT})` });
    }
    const project = await client.post('/v1/projects', { name: 'p', archived: 'yesterday' });
    expectError(project, { status: 400, retcode: 'E004', retmsg: `invalid parameter: archived (${DATE_FORMAT})` });
  });

  it('a change to an id that does not exist says no task has that id', async () => {
    const { client } = await suite().newClient();
    const answer = await client.post('/v1/tasks', { id: 'never-made', completed: '2026-11-23 10:00:00 +0000' });
    const body = expectError(answer, { status: 400, retcode: 'E004', retmsg: invalidParameter('title') });
    expect(body.retmsg).toBe('invalid parameter: title (required: no task has this id, so this would create one)');
    const fresh = await client.post('/v1/tasks', { notes: 'no title' });
    expectError(fresh, { status: 400, retcode: 'E004', retmsg: 'invalid parameter: title (required)' });
  });

  it('a repeater without start_at or end_at is refused; with either it is kept', async () => {
    const { client } = await suite().newClient();
    const refused = await client.post('/v1/tasks', { id: 'loose', title: 'Water plants', repeater: 'FREQ=WEEKLY' });
    expectError(refused, {
      status: 400,
      retcode: 'E004',
      retmsg: 'invalid parameter: repeater (needs start_at (or end_at) to repeat from)',
    });
    expect((await client.get('/v1/tasks/loose')).status).toBe(400);

    expect(
      (
        await client.post('/v1/tasks', {
          id: 'anchored',
          title: 'Water',
          start_at: '2026-11-23 09:00:00 +0000',
          repeater: 'FREQ=WEEKLY',
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await client.post('/v1/tasks', {
          id: 'due',
          title: 'Pay',
          end_at: '2026-11-23 09:00:00 +0000',
          repeater: 'FREQ=MONTHLY',
        })
      ).status,
    ).toBe(200);
    // Taking the anchor away from a repeating task is refused as well.
    const unanchored = await client.post('/v1/tasks', { id: 'due', end_at: null });
    expectError(unanchored, { status: 400, retcode: 'E004', retmsg: invalidParameter('repeater') });
  });
});
