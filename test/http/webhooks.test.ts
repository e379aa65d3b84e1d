/**
 * Webhooks (API.md 4.7): hooks made, changed and deleted through /v1/webhooks, bad input refused
 * with nothing stored, and deliveries to a real local receiver: signed as Standard Webhooks do,
 * in commit order, a failed one retried with the same webhook-id, private targets refused unless
 * allowed.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { verifyWebhook } from '../../src/client/webhooks.js';
import { nowMicros } from '../../src/domain/time.js';
import { WebhookSender, type DeliveryOutcome } from '../../src/http/webhooks/sender.js';
import { decodeCursor } from '../../src/http/wire/cursor.js';
import { builtDeliveryWorker } from '../support/built.js';
import { ENGINES, startHarness, type Harness } from '../support/harness.js';
import { Client, expectError, invalidParameter, ok } from './support/api.js';

interface Received {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** A receiver on 127.0.0.1 that keeps what it gets and answers as `answer` says. */
class Receiver {
  readonly received: Received[] = [];
  answer: (received: Received) => number = () => 204;
  /** Answers wait for this. */
  held: Promise<void> = Promise.resolve();
  #server: Server | undefined;
  #waiters: { count: number; resolve: () => void }[] = [];

  async start(): Promise<string> {
    this.#server = createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => (body += chunk));
      request.on('end', () => {
        const received = { path: request.url ?? '', headers: request.headers, body };
        this.received.push(received);
        void this.held.then(() => {
          response.statusCode = this.answer(received);
          response.end();
        });
        for (const waiter of this.#waiters.splice(0)) {
          if (this.received.length >= waiter.count) waiter.resolve();
          else this.#waiters.push(waiter);
        }
      });
    });
    await new Promise<void>((resolve) => this.#server?.listen(0, '127.0.0.1', resolve));
    const { port } = this.#server.address() as AddressInfo;
    return `http://127.0.0.1:${port}/hook`;
  }

  /** Resolves once `count` requests came in all. */
  receivedCount(count: number): Promise<void> {
    if (this.received.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ count, resolve }));
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.#server?.close(resolve));
  }
}

const wireHook = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  active: z.boolean(),
  secret: z.string().nullable(),
  created: z.string(),
  updated: z.string(),
  failing_since: z.string().nullable(),
  disabled_reason: z.string().nullable(),
});
const hookList = z.object({ entries: z.array(wireHook) });
const delivery = z.object({
  type: z.string(),
  id: z.string(),
  created: z.string(),
  data: z.object({ id: z.string(), title: z.string().optional() }).loose(),
  cursor: z.string(),
});
const deliveryLog = z.object({
  entries: z.array(
    z.object({ webhook_id: z.string(), status: z.number().nullable(), error: z.string().nullable() }).loose(),
  ),
});

describe.each(ENGINES)('webhooks on %s', (engine) => {
  let harness: Harness;
  let receiver: Receiver;
  let url: string;
  let clockOffset = 0;
  const outcomes: DeliveryOutcome[] = [];
  let sender: WebhookSender;

  beforeAll(async () => {
    harness = await startHarness(engine, {
      app: { webhookAllowPrivate: true },
      services: { clock: () => nowMicros() + clockOffset },
    });
  });
  afterAll(async () => {
    await harness.close();
  });
  afterEach(async () => {
    await sender?.stop();
    await receiver?.stop();
    outcomes.length = 0;
  });

  let accountId = 0;

  async function start(
    allowPrivate = true,
    deliveryWorker = builtDeliveryWorker(harness.location),
    sending = harness.services.webhooks.sending,
  ): Promise<Client> {
    receiver = new Receiver();
    url = await receiver.start();
    sender = new WebhookSender(sending, {
      allowPrivate,
      deliveryWorker,
      observe: (outcome) => outcomes.push(outcome),
    });
    sender.start();
    const user = await harness.newUser();
    accountId = (await harness.store.findAccount(user.username))?.id ?? 0;
    return new Client(harness.app, user.token);
  }

  /** Waits up to 2 s for `count` outcomes: the sender observes one after its answer is read. */
  async function outcomesCount(count: number): Promise<void> {
    for (let tries = 0; outcomes.length < count && tries < 200; tries++) await sleep(10);
  }

  /** Reads the hook's log until `done` holds of it (its writes come just after the answers). */
  async function logUntil(
    client: Client,
    hookId: string,
    done: (entries: z.infer<typeof deliveryLog>['entries']) => boolean,
  ): Promise<z.infer<typeof deliveryLog>['entries']> {
    let entries = ok(await client.get(`/v1/webhooks/${hookId}/deliveries`), deliveryLog).entries;
    for (let tries = 0; !done(entries) && tries < 200; tries++) {
      await sleep(10);
      entries = ok(await client.get(`/v1/webhooks/${hookId}/deliveries`), deliveryLog).entries;
    }
    return entries;
  }

  it('makes, lists, changes and deletes a hook; the secret is shown once', async () => {
    const client = await start();
    const made = ok(await client.post('/v1/webhooks', { url, events: ['task.created'] }), wireHook);
    expect(made).toMatchObject({ url, events: ['task.created'], active: true, failing_since: null });
    expect(made.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/);
    const listed = ok(await client.get('/v1/webhooks'), hookList);
    expect(listed.entries).toEqual([{ ...made, secret: null }]);
    const changed = ok(await client.post('/v1/webhooks', { id: made.id, events: ['*'], active: false }), wireHook);
    expect(changed).toMatchObject({ id: made.id, events: ['*'], active: false, secret: null });
    ok(
      await client.post('/v1/webhooks', { id: made.id, deleted: true }),
      z.object({ id: z.string(), deleted: z.literal(true) }),
    );
    expect(ok(await client.get('/v1/webhooks'), hookList).entries).toEqual([]);
  });

  it('refuses a URL that is not https, unknown events and a 21st hook, storing nothing', async () => {
    const { token } = await harness.newUser();
    const strict = await startHarness(engine);
    try {
      const client = new Client(strict.app, (await strict.newUser()).token);
      expectError(await client.post('/v1/webhooks', { url: 'http://example.com/hook', events: ['*'] }), {
        status: 400,
        retcode: 'E004',
        retmsg: invalidParameter('url'),
      });
      expectError(await client.post('/v1/webhooks', { url: 'ftp://example.com/', events: ['*'] }), {
        status: 400,
        retcode: 'E004',
        retmsg: invalidParameter('url'),
      });
      for (const events of [['task.exploded'], [], ['*', 'task.created'], 'task.created']) {
        expectError(await client.post('/v1/webhooks', { url: 'https://example.com/hook', events }), {
          status: 400,
          retcode: 'E004',
          retmsg: invalidParameter('events'),
        });
      }
      for (let index = 0; index < 20; index++) {
        ok(await client.post('/v1/webhooks', { url: `https://example.com/${index}`, events: ['*'] }), wireHook);
      }
      expectError(await client.post('/v1/webhooks', { url: 'https://example.com/21', events: ['*'] }), {
        status: 400,
        retcode: 'E004',
        retmsg: invalidParameter('url'),
      });
      expect(ok(await client.get('/v1/webhooks'), hookList).entries).toHaveLength(20);
    } finally {
      await strict.close();
    }
    expect(token).not.toBe('');
  });

  /** The sender's part of the service, counting its reads of the outbox. */
  function countingOutboxReads(): { sending: typeof harness.services.webhooks.sending; reads: () => number } {
    const sending = harness.services.webhooks.sending;
    let reads = 0;
    return {
      sending: {
        ...sending,
        events: (...args) => {
          reads += 1;
          return sending.events(...args);
        },
      },
      reads: () => reads,
    };
  }

  it("delivers a change to a hook while another of the account's hooks waits for an answer", async () => {
    const client = await start();
    let release = (): void => undefined;
    receiver.held = new Promise((resolve) => (release = resolve));
    try {
      ok(await client.post('/v1/webhooks', { url, events: ['task.created'] }), wireHook);
      ok(await client.post('/v1/webhooks', { url: `${url}?projects`, events: ['project.changed'] }), wireHook);
      await client.createTask({ title: 'keeps the first hook busy' });
      await receiver.receivedCount(1);
      // The only commit the second hook wants, made while the first is busy: its wake must reach it.
      await client.createProject({ name: 'for the second hook' });
      await receiver.receivedCount(2);
      expect(receiver.received.map((got) => got.path.endsWith('?projects'))).toEqual([false, true]);
    } finally {
      release();
    }
    await outcomesCount(2);
    expect(outcomes).toEqual(['delivered', 'delivered']);
  });

  it("looks the account's hooks up about once a second while all are busy here, and starts one made meanwhile", async () => {
    let lookups = 0;
    const sending = harness.services.webhooks.sending;
    const client = await start(true, undefined, {
      ...sending,
      activeHooks: (...args) => {
        lookups += 1;
        return sending.activeHooks(...args);
      },
    });
    let release = (): void => undefined;
    receiver.held = new Promise((resolve) => (release = resolve));
    try {
      ok(await client.post('/v1/webhooks', { url, events: ['*'] }), wireHook);
      await client.createTask({ title: 'keeps the first hook busy' });
      // Its first delivery waits for the held answer: the hook stays busy while the rest come.
      await receiver.receivedCount(1);
      const lookupsBefore = lookups;
      const startedAt = performance.now();
      for (let index = 0; index < 40; index++) {
        await client.createTask({ title: `meanwhile ${index}` });
        await sleep(15);
      }
      const seconds = (performance.now() - startedAt) / 1000;
      // Without the knowledge of the account's hooks: a lookup per commit that came after a gathering (40 here).
      expect(lookups - lookupsBefore).toBeLessThanOrEqual(2 + Math.floor(seconds));
      ok(await client.post('/v1/webhooks', { url: `${url}?second`, events: ['*'] }), wireHook);
      await client.createTask({ title: 'for the second' });
      // Found by the lookup a skipped wake is owed, within a second, while the first is still busy.
      await receiver.receivedCount(2);
      expect(receiver.received.map((got) => got.path.endsWith('?second'))).toEqual([false, true]);
    } finally {
      release();
    }
    // Both hooks go on to the end, every try delivered (none left to fail after this test).
    await client.createTask({ title: 'last' });
    const lastOf = (second: boolean): boolean =>
      receiver.received.some(
        (got) => got.path.endsWith('?second') === second && delivery.parse(JSON.parse(got.body)).data.title === 'last',
      );
    for (let tries = 0; !(lastOf(false) && lastOf(true)) && tries < 500; tries++) await sleep(10);
    expect(lastOf(false) && lastOf(true)).toBe(true);
    await outcomesCount(receiver.received.length);
    expect(outcomes.filter((outcome) => outcome !== 'delivered')).toEqual([]);
  });

  it.runIf(engine === 'sqlite')(
    'reads and renders the outbox on the delivery thread, never on the thread that answers requests',
    async () => {
      const counting = countingOutboxReads();
      const client = await start(true, undefined, counting.sending);
      ok(await client.post('/v1/webhooks', { url, events: ['task.created'] }), wireHook);
      await client.createTask({ title: 'read aside' });
      await client.post('/v1/projects', { name: 'not asked for' });
      await client.createTask({ title: 'read aside too' });
      await receiver.receivedCount(2);
      await outcomesCount(2);
      const titles = receiver.received.map((got) => delivery.parse(JSON.parse(got.body)).data.title);
      expect(titles).toEqual(['read aside', 'read aside too']);
      expect(outcomes).toEqual(['delivered', 'delivered']);
      expect(counting.reads()).toBe(0);
    },
  );

  it.runIf(engine === 'sqlite')(
    'reads the outbox here when the delivery thread could not open its reader, and still delivers',
    async () => {
      const counting = countingOutboxReads();
      const missing = { engine: 'sqlite', dataDir: path.join(tmpdir(), 'no-such-task-service-store') } as const;
      const client = await start(
        true,
        { ...builtDeliveryWorker(missing), file: builtDeliveryWorker(harness.location).file },
        counting.sending,
      );
      ok(await client.post('/v1/webhooks', { url, events: ['*'] }), wireHook);
      await client.createTask({ title: 'read here' });
      await receiver.receivedCount(1);
      await outcomesCount(1);
      expect(delivery.parse(JSON.parse(receiver.received[0]?.body ?? '')).data.title).toBe('read here');
      expect(outcomes).toEqual(['delivered']);
      expect(counting.reads()).toBeGreaterThan(0);
    },
  );

  it('delivers each change signed, in commit order, with the record as /v1 renders it', async () => {
    const client = await start();
    const made = ok(await client.post('/v1/webhooks', { url, events: ['*'] }), wireHook);
    const task = await client.createTask({ title: 'hello hooks' });
    await client.createTask({ id: task.id, title: 'hello hooks', completed: '2026-01-02 03:04:05 +0000' });
    await client.createProject({ name: 'a project' });
    await receiver.receivedCount(3);
    const bodies = receiver.received.map((received) => delivery.parse(JSON.parse(received.body)));
    expect(bodies.map((body) => body.type)).toEqual(['task.created', 'task.completed', 'project.changed']);
    expect(bodies[0]?.data).toMatchObject({ id: task.id, title: 'hello hooks' });
    for (const received of receiver.received) {
      expect(await verifyWebhook(made.secret ?? '', received.headers as Record<string, string>, received.body)).toBe(
        true,
      );
      expect(
        await verifyWebhook(
          'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
          received.headers as Record<string, string>,
          received.body,
        ),
      ).toBe(false);
      expect(
        await verifyWebhook(made.secret ?? '', received.headers as Record<string, string>, `${received.body} `),
      ).toBe(false);
    }
    // The receiver has the third POST before the delivery thread has read its answer.
    await outcomesCount(3);
    expect(outcomes).toEqual(['delivered', 'delivered', 'delivered']);
  });

  it('retries a failed delivery later with the same webhook-id, and keeps the order behind it', async () => {
    const client = await start();
    ok(await client.post('/v1/webhooks', { url, events: ['task.created'] }), wireHook);
    receiver.answer = () => 500;
    const first = await client.createTask({ title: 'first' });
    await receiver.receivedCount(1);
    await client.createTask({ title: 'second' });
    // Not before its retry is due: the second waits behind the first.
    await sleep(200);
    expect(receiver.received).toHaveLength(1);
    receiver.answer = () => 200;
    clockOffset += 31_000_000;
    // A change the hook wants wakes the sender, which finds the retry due by the (moved) clock (one
    // it does not want is not kept, and wakes no sender of another process).
    await client.createTask({ title: 'third' });
    await receiver.receivedCount(4);
    const [failed, retried, second, third] = receiver.received;
    expect(retried?.headers['webhook-id']).toBe(failed?.headers['webhook-id']);
    expect(delivery.parse(JSON.parse(retried?.body ?? '')).data.id).toBe(first.id);
    expect(delivery.parse(JSON.parse(second?.body ?? '')).data.title).toBe('second');
    expect(delivery.parse(JSON.parse(third?.body ?? '')).data.title).toBe('third');
    const hooks = ok(await client.get('/v1/webhooks'), hookList);
    // The last try is logged once the receiver's answer is in: just after it took the request.
    const logged = async (): Promise<(number | null)[]> =>
      ok(await client.get(`/v1/webhooks/${hooks.entries[0]?.id}/deliveries`), deliveryLog).entries.map(
        (entry) => entry.status,
      );
    let statuses = await logged();
    for (let tries = 0; statuses.length < 4 && tries < 100; tries++) statuses = await sleep(10).then(logged);
    expect(statuses).toEqual([200, 200, 200, 500]);
  });

  it('keeps the order per hook over 1,000 quick changes', async () => {
    const client = await start();
    ok(await client.post('/v1/webhooks', { url, events: ['*'] }), wireHook);
    await Promise.all(
      Array.from({ length: 100 }, (_, batch) =>
        client.postTasks(Array.from({ length: 10 }, (_, index) => ({ title: `t${batch}-${index}` }))),
      ),
    );
    await receiver.receivedCount(1000);
    const revs = receiver.received.map((received) => delivery.parse(JSON.parse(received.body)).cursor);
    const ids = receiver.received.map((received) => received.headers['webhook-id']);
    expect(new Set(ids).size).toBe(1000);
    const numbers = revs.map((cursor) => decodeCursor(cursor)?.rev);
    expect(numbers.every((rev) => rev !== undefined)).toBe(true);
    expect(numbers).toEqual([...numbers].sort((a = 0, b = 0) => a - b));
    // Recorded a batch at a time: the log has the newest 50, newest first, and the outbox is empty.
    const hookId = ok(await client.get('/v1/webhooks'), hookList).entries[0]?.id ?? '';
    const newest = ids.slice(-50).reverse();
    const log = await logUntil(client, hookId, (entries) => entries[0]?.message_id === newest[0]);
    expect(log.map((entry) => entry.webhook_id)).toEqual(newest);
    expect(await harness.store.webhooks.events(accountId, 0, 10)).toEqual([]);
  });

  it('fails a try whose delivery thread died, and retries it as any failed one', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'dying-worker-'));
    const dying = path.join(dir, 'worker.mjs');
    await writeFile(
      dying,
      "import { parentPort } from 'node:worker_threads';\nparentPort.on('message', () => process.exit(3));\n",
    );
    const client = await start(true, { ...builtDeliveryWorker(harness.location), file: pathToFileURL(dying) });
    const made = ok(await client.post('/v1/webhooks', { url, events: ['*'] }), wireHook);
    await client.createTask({ title: 'lost in the thread?' });
    const [entry] = await logUntil(client, made.id, (entries) => entries.length > 0);
    expect(entry?.error).toMatch(/delivery thread ended/);
    const [hook] = ok(await client.get('/v1/webhooks'), hookList).entries;
    expect(hook?.failing_since).not.toBeNull();
    expect(outcomes).toEqual(['failed']);
    await rm(dir, { recursive: true });
  });

  it('leaves a hook its owner turned off during a run of deliveries off', async () => {
    const client = await start();
    const made = ok(await client.post('/v1/webhooks', { url, events: ['*'] }), wireHook);
    let answer = (): void => undefined;
    receiver.held = new Promise((resolve) => (answer = resolve));
    await client.postTasks(Array.from({ length: 50 }, (_, index) => ({ title: `t${index}` })));
    await receiver.receivedCount(1);
    ok(await client.post('/v1/webhooks', { id: made.id, active: false }), wireHook);
    answer();
    await logUntil(client, made.id, (entries) => entries.length > 0);
    await sleep(100);
    const [hook] = ok(await client.get('/v1/webhooks'), hookList).entries;
    expect(hook?.active).toBe(false);
    // Nothing more is sent to it.
    const sent = receiver.received.length;
    await client.createTask({ title: 'after' });
    await sleep(200);
    expect(receiver.received).toHaveLength(sent);
  });

  it('refuses a loopback target unless allowed, and says why in the log', async () => {
    const client = await start(false);
    const made = ok(await client.post('/v1/webhooks', { url, events: ['*'] }), wireHook);
    await client.createTask({ title: 'to nowhere' });
    await outcomesCount(1);
    expect(outcomes).toEqual(['refused_target']);
    expect(receiver.received).toEqual([]);
    // The try is logged after it is counted (in its own commit): wait for the log to have it.
    const logged = async (): Promise<readonly { readonly error?: string | null }[]> =>
      ok(await client.get(`/v1/webhooks/${made.id}/deliveries`), deliveryLog).entries;
    let entries = await logged();
    for (let tries = 0; entries.length === 0 && tries < 100; tries++) entries = await sleep(10).then(logged);
    expect(entries[0]?.error).toMatch(/private|loopback/);
  });
});
