/**
 * Reminders fire (API.md 4.5, issue #24) on both engines: a firing is claimed in the store, once,
 * and goes to the account's hooks as `reminder.due` with the task, through a real local receiver.
 * Time is moved through the services' clock, and the firer's pass is called, instead of waiting.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MICROS_PER_SECOND, nowMicros, type Micros } from '../../src/domain/time.js';
import { WebhookSender } from '../../src/http/webhooks/sender.js';
import { ReminderFirer } from '../../src/service/reminder-firer.js';
import { builtDeliveryWorker } from '../support/built.js';
import { ENGINES, startHarness, type Harness } from '../support/harness.js';
import { Client, ok } from './support/api.js';

const MINUTE = 60 * MICROS_PER_SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const delivery = z.object({
  type: z.string(),
  data: z.object({ id: z.string(), start_at: z.string().nullable() }).loose(),
});

/** An instant as the wire writes it, to the second. */
function wire(at: Micros): string {
  const iso = new Date(Math.floor(at / 1000)).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} +0000`;
}

describe.each(ENGINES)('reminders firing on %s', (engine) => {
  let harness: Harness;
  let clockOffset = 0;
  let server: Server;
  let url: string;
  const bodies: z.infer<typeof delivery>[] = [];
  let arrived: () => void = () => undefined;
  let sender: WebhookSender;
  const late: Micros[] = [];
  let firer: ReminderFirer;
  /** A minute past now, in whole seconds: the first reminder's time. */
  let start: Micros;

  beforeEach(async () => {
    clockOffset = 0;
    start = Math.floor(nowMicros() / MICROS_PER_SECOND) * MICROS_PER_SECOND + MINUTE;
    harness = await startHarness(engine, {
      app: { webhookAllowPrivate: true },
      services: { clock: () => nowMicros() + clockOffset },
    });
    server = createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => (body += chunk));
      request.on('end', () => {
        bodies.push(delivery.parse(JSON.parse(body)));
        response.statusCode = 204;
        response.end();
        arrived();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    sender = new WebhookSender(harness.services.webhooks.sending, {
      allowPrivate: true,
      deliveryWorker: builtDeliveryWorker(harness.location),
    });
    sender.start();
    firer = new ReminderFirer(harness.services.reminders, { everyMs: 1000, observe: (micros) => late.push(micros) });
  });
  afterEach(async () => {
    await sender.stop();
    await new Promise((resolve) => server.close(resolve));
    await harness.close();
    bodies.length = 0;
    late.length = 0;
  });

  /** A user with a hook that asks for `reminder.due` only. */
  async function hooked(): Promise<Client> {
    const client = new Client(harness.app, (await harness.newUser()).token);
    ok(await client.post('/v1/webhooks', { url, events: ['reminder.due'] }), z.object({ id: z.string() }).loose());
    return client;
  }

  /** Resolves once `count` deliveries came in all. */
  async function received(count: number): Promise<void> {
    while (bodies.length < count) await new Promise<void>((resolve) => (arrived = resolve));
  }

  function at(instant: Micros): void {
    clockOffset = instant - nowMicros();
  }

  it('fires a reminder once, as reminder.due with the task; a second claim of it fails', async () => {
    const client = await hooked();
    const task = await client.createTask({ title: 'call the plumber', reminders: [{ at: wire(start) }] });
    expect(await firer.fireDue()).toBe(0);
    at(start + 2 * MICROS_PER_SECOND);
    const [due] = await harness.services.reminders.due(10);
    expect(due).toMatchObject({ taskId: task.id, due: start });
    expect(await firer.fireDue()).toBe(1);
    expect(late).toHaveLength(1);
    expect(late[0]).toBeGreaterThanOrEqual(2 * MICROS_PER_SECOND);
    if (due !== undefined) expect(await harness.services.reminders.claim(due)).toBe(false);
    expect(await firer.fireDue()).toBe(0);
    await received(1);
    expect(bodies.map((body) => [body.type, body.data.id])).toEqual([['reminder.due', task.id]]);
    expect(await harness.services.reminders.due(10)).toEqual([]);
  });

  it('fires each reminder missed while stopped once, and none of a completed task', async () => {
    const client = await hooked();
    const task = await client.createTask({
      title: 'many reminders',
      start_at: wire(start + HOUR),
      reminders: [{ at: wire(start) }, { at: wire(start + MINUTE) }, { before: 30, of: 'start_at' }],
    });
    const done = await client.createTask({ title: 'done early', reminders: [{ at: wire(start) }] });
    await client.createTask({ id: done.id, title: 'done early', completed: wire(nowMicros()) });
    at(start + DAY);
    expect(await firer.fireDue()).toBe(3);
    expect(await firer.fireDue()).toBe(0);
    await received(3);
    expect(bodies.map((body) => [body.type, body.data.id])).toEqual([
      ['reminder.due', task.id],
      ['reminder.due', task.id],
      ['reminder.due', task.id],
    ]);
  });

  it("moves a repeating task's relative reminder on with each occurrence", async () => {
    const client = await hooked();
    const task = await client.createTask({
      title: 'water the plants',
      start_at: wire(start + HOUR),
      repeater: 'FREQ=DAILY',
      reminders: [{ before: 10, of: 'start_at' }],
    });
    at(start + HOUR - 5 * MINUTE);
    expect(await firer.fireDue()).toBe(1);
    expect(await firer.fireDue()).toBe(0);
    // Done with this occurrence: the task moves to the next day, and so does its reminder.
    const moved = await client.createTask({ id: task.id, title: 'water the plants', completed: wire(nowMicros()) });
    expect(moved.start_at).toBe(wire(start + HOUR + DAY));
    expect(await firer.fireDue()).toBe(0);
    at(start + HOUR + DAY - 5 * MINUTE);
    expect(await firer.fireDue()).toBe(1);
    await received(2);
    expect(bodies.map((body) => [body.type, body.data.start_at])).toEqual([
      ['reminder.due', wire(start + HOUR)],
      ['reminder.due', wire(start + HOUR + DAY)],
    ]);
  });

  it("leaves a reminder due to fire when the task changes between its time and the firer's claim", async () => {
    const client = await hooked();
    const task = await client.createTask({ title: 'edited in time', reminders: [{ at: wire(start) }] });
    at(start + MICROS_PER_SECOND);
    await client.createTask({ id: task.id, title: 'edited just after', reminders: [{ at: wire(start) }] });
    expect(await firer.fireDue()).toBe(1);
    await received(1);
    expect(bodies.map((body) => [body.type, body.data.id])).toEqual([['reminder.due', task.id]]);
  });

  it('is told as task.updated to a hook that asks for that, not as a second kind of change', async () => {
    const client = new Client(harness.app, (await harness.newUser()).token);
    ok(await client.post('/v1/webhooks', { url, events: ['*'] }), z.object({ id: z.string() }).loose());
    const task = await client.createTask({ title: 'one', reminders: [{ at: wire(start) }] });
    await client.createTask({ id: task.id, title: 'one, renamed', reminders: [{ at: wire(start) }] });
    at(start + MICROS_PER_SECOND);
    expect(await firer.fireDue()).toBe(1);
    await received(3);
    expect(bodies.map((body) => body.type)).toEqual(['task.created', 'task.updated', 'reminder.due']);
  });
});
