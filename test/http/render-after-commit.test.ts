/**
 * A write is rendered after its transaction committed, outside the account's lock (SQLite's group
 * commit, PostgreSQL's row lock and pooled connection): a long array POST does not hold the
 * writes of other accounts while its answer is escaped and formatted.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '../../src/domain/task.js';
import { buildApp } from '../../src/http/app.js';
import { RECORD_RESOURCES } from '../../src/http/resources.js';
import { buildServices } from '../../src/service/services.js';
import type { Store } from '../../src/store/store.js';
import { call, ENGINES, startHarness, type Harness, type User } from '../support/harness.js';

/** The real store, reporting which accounts are inside a write transaction at any moment. */
function observedStore(store: Store, inside: Map<number, number>): Store {
  return new Proxy(store, {
    get(target, property) {
      if (property === 'write') {
        const write: Store['write'] = (accountId, work) =>
          target.write(accountId, async (tx) => {
            inside.set(accountId, (inside.get(accountId) ?? 0) + 1);
            try {
              return await work(tx);
            } finally {
              inside.set(accountId, (inside.get(accountId) ?? 1) - 1);
            }
          });
        return write;
      }
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

describe.each(ENGINES)('rendering writes on %s', (engine) => {
  let harness: Harness;
  let writer: User;
  let other: User;

  beforeAll(async () => {
    harness = await startHarness(engine);
    writer = await harness.newUser('Europe/Berlin');
    other = await harness.newUser();
  });
  afterAll(() => harness.close());

  it('renders a long array POST after its commit, while another account writes', async () => {
    const inside = new Map<number, number>();
    const writerId = (await harness.store.findAccount(writer.username))?.id ?? -1;
    const renderedInside: string[] = [];
    let rendered = 0;
    const app = await buildApp({
      services: buildServices(observedStore(harness.store, inside)),
      log: pino({ level: 'silent' }),
      maintenance: false,
      resources: {
        ...RECORD_RESOURCES,
        task: {
          ...RECORD_RESOURCES.task,
          render: (task: Task, zone: string) => {
            rendered += 1;
            if (task.id.startsWith('long-') && (inside.get(writerId) ?? 0) > 0) renderedInside.push(task.id);
            return RECORD_RESOURCES.task.render(task, zone);
          },
        },
      },
    });
    await app.ready();
    try {
      const long = Array.from({ length: 1000 }, (_, index) => ({
        id: `long-${index}`,
        title: `<b>${index}</b> & more`,
        notes: '&'.repeat(500),
        start_at: '2026-03-29 01:30:00 +0100',
      }));
      const [answer, small] = await Promise.all([
        call(app, { url: '/v1/tasks', token: writer.token, body: long }),
        call(app, { url: '/v1/tasks', token: other.token, body: { id: 'meanwhile', title: 'meanwhile' } }),
      ]);
      expect(answer.status).toBe(200);
      expect(small.status).toBe(200);
      expect((answer.json as { entries: unknown[] }).entries).toHaveLength(1000);
      expect(rendered).toBeGreaterThanOrEqual(1001);
      expect(renderedInside).toEqual([]);
    } finally {
      await app.close();
    }
  });
});
