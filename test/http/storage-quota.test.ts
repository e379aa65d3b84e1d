/**
 * Issue #16, 1: what one account may store, records and bytes of text. Past the cap a write is
 * refused whole with E006 and a reason naming the cap, nothing changed; a write that does not
 * grow past it (an update, a deletion, a shorter note) is let through. Labels count too.
 */
import { describe, expect, it } from 'vitest';
import { ENGINES } from '../support/harness.js';
import { expectError, ok, taskList, type Client } from './support/api.js';
import type { Answer } from '../support/harness.js';
import { useHarness } from './support/setup.js';

const MAX_RECORDS = 6;
const MAX_BYTES = 10_000;

const RECORDS_FULL = `request body too large (the account may store at most ${MAX_RECORDS} records)`;
const BYTES_FULL = `request body too large (the account may store at most ${MAX_BYTES} bytes of text)`;

function expectFull(answer: Answer, retmsg: string): void {
  expectError(answer, { status: 400, retcode: 'E006', retmsg });
}

async function count(client: Client): Promise<number> {
  return ok(await client.get('/v1/tasks?updated_after=0001-01-01T00:00:00Z'), taskList).entries.length;
}

describe.each(ENGINES)('the storage quota of an account on %s', (engine) => {
  const suite = useHarness(engine, { services: { storageQuota: { maxRecords: MAX_RECORDS, maxBytes: MAX_BYTES } } });

  it('refuses records past the cap with E006, whole, and lets updates and deletions through', async () => {
    const { client } = await suite().newClient();
    const first = await client.postTasks(Array.from({ length: 4 }, (_unused, index) => ({ title: `t${index}` })));
    // A task naming a new project stores two records: the sixth is the project.
    const fifth = await client.createTask({ title: 't4', project: 'P' });
    const over = await client.post('/v1/tasks', [{ title: 'one more' }, { title: 'and another' }]);
    expectFull(over, RECORDS_FULL);
    expect(await count(client)).toBe(5);
    expectFull(await client.post('/v1/contexts', { name: '@new' }), RECORDS_FULL);
    // Changing and deleting what is there is still allowed: a tombstone is the same record.
    await client.createTask({ id: first[0]?.id, title: 'renamed' });
    await client.createTask({ id: fifth.id, deleted: '2026-01-01' });
    expect(await count(client)).toBe(5);
    // Another account is not touched by this one's quota.
    const { client: other } = await suite().newClient();
    await other.postTasks(Array.from({ length: 6 }, (_unused, index) => ({ title: `o${index}` })));
  });

  it('refuses text past the byte cap with E006, and lets a note shrink', async () => {
    const { client } = await suite().newClient();
    // UTF-8 bytes are counted: "é" is two.
    const large = await client.createTask({ title: 'large', notes: 'é'.repeat(3000) });
    const grow = await client.post('/v1/tasks', { id: large.id, notes: 'é'.repeat(5000) });
    expectFull(grow, BYTES_FULL);
    expect((await client.getTask(large.id)).notes).toBe('é'.repeat(3000));
    expectFull(await client.post('/v1/tasks', { title: 'x'.repeat(200), notes: 'y'.repeat(4000) }), BYTES_FULL);
    await client.createTask({ id: large.id, notes: 'short' });
    await client.createTask({ title: 'fits now', notes: 'y'.repeat(4000) });
    expect(await count(client)).toBe(2);
  });
});
