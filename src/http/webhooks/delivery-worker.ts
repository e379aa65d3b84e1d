import type { MessagePort } from 'node:worker_threads';
import { wantsEvent } from '../../domain/webhook.js';
import type { ReadOutbox } from '../../service/webhooks.js';
import { deliveryBody, messageIdOf } from './delivery-body.js';
import { ReceiverConnections } from './connections.js';
import {
  delivered,
  type ChangeHead,
  type Delivery,
  type DeliveryRun,
  type OutboxBatch,
  type RunResult,
  type ToDeliveryThread,
  type TriedDelivery,
} from './delivery-protocol.js';
import { signature } from './signing.js';

/*
 * The delivery thread: signs and POSTs the sender's runs (delivery-thread.ts), so that the
 * requests, answers, TLS and signatures of deliveries take none of the thread that answers the
 * service's requests; where it has a reader of the outbox of its own, it also reads each batch
 * and renders its bodies. One run per hook at a time (the sender's lease); runs of several hooks
 * go side by side. Started by the wiring's entry (src/delivery-main.ts).
 */

/** Now on the wall clock, in µs, finer than Date.now(): tries of one run are told apart in the log. */
function wallMicros(): number {
  return Math.round((performance.timeOrigin + performance.now()) * 1000);
}

/** Serves the sender's runs on `port`; `readOutbox`: the thread's own reader, when it has one. */
export function serveDeliveries(port: MessagePort, readOutbox: Promise<ReadOutbox> | undefined): void {
  const connections = new ReceiverConnections();
  let stopping = false;

  async function post(run: DeliveryRun, deliveries: readonly Delivery[]): Promise<TriedDelivery[]> {
    const target = { url: new URL(run.url), address: run.address };
    const tried: TriedDelivery[] = [];
    let previousAt = 0;
    for (const { messageId, body } of deliveries) {
      if (stopping || Date.now() >= run.startBeforeMs) break;
      const at = Math.max(wallMicros() + run.clockLeadMicros, previousAt + 1);
      previousAt = at;
      const started = performance.now();
      const timestamp = Math.floor(at / 1_000_000);
      const headers = {
        'user-agent': 'task-service webhooks',
        'webhook-id': messageId,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signature(run.secret, messageId, timestamp, body),
      };
      const { status, error } = await connections.connectionFor(run.hookKey, target).post(headers, body);
      const ok = delivered(status);
      tried.push({
        at,
        answeredAt: wallMicros() + run.clockLeadMicros,
        status,
        error: error ?? (ok ? null : `answered ${status ?? 'nothing'}`),
        durationMs: Math.round(performance.now() - started),
      });
      if (!ok) break;
    }
    return tried;
  }

  /**
   * Reads the batch and delivers what the hook asked for of it. A batch that cannot be read or
   * rendered here is answered so, and the sender reads it itself.
   */
  async function readAndPost(run: DeliveryRun, batch: OutboxBatch): Promise<RunResult> {
    let read: ChangeHead[];
    let deliveries: Delivery[];
    try {
      if (readOutbox === undefined) throw new Error('this delivery thread has no reader of the outbox');
      const events = (await readOutbox)(batch.accountId, batch.afterRev, batch.limit);
      read = events.map(({ rev, type, created }) => ({ rev, type, created }));
      deliveries = events
        .filter((event) => wantsEvent(batch.asked, event.type))
        .map((event) => {
          const messageId = messageIdOf(batch.hookId, event.rev);
          return { messageId, body: deliveryBody(event, messageId, batch.context) };
        });
    } catch (error) {
      return { tried: [], read: { failed: error instanceof Error ? error.message : String(error) } };
    }
    return { tried: await post(run, deliveries), read };
  }

  // The sender's own messages (delivery-protocol.ts): trusted, their shape is all the type says.
  port.on('message', (message: ToDeliveryThread) => {
    if (message.type === 'stop') {
      stopping = true;
      connections.closeAll();
      return;
    }
    const { run } = message;
    const result: Promise<RunResult> =
      'batch' in run ? readAndPost(run, run.batch) : post(run, run.deliveries).then((tried) => ({ tried }));
    void result.then((done) => port.postMessage({ runId: run.runId, result: done }));
  });
}
