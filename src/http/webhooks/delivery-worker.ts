import { parentPort } from 'node:worker_threads';
import { ReceiverConnections } from './connections.js';
import { delivered, type DeliveryRun, type ToDeliveryThread, type TriedDelivery } from './delivery-protocol.js';
import { post } from './post.js';
import { signature } from './signing.js';

/*
 * The delivery thread: signs and POSTs the sender's runs (delivery-thread.ts), so that the
 * requests, answers, TLS and signatures of deliveries take none of the thread that answers the
 * service's requests. One run per hook at a time (the sender's lease); runs of several hooks go
 * side by side.
 */

const connections = new ReceiverConnections();
let stopping = false;

/** Now on the wall clock, in µs, finer than Date.now(): tries of one run are told apart in the log. */
function wallMicros(): number {
  return Math.round((performance.timeOrigin + performance.now()) * 1000);
}

async function runDeliveries(run: DeliveryRun): Promise<TriedDelivery[]> {
  const target = { url: new URL(run.url), address: run.address, family: run.family };
  const tried: TriedDelivery[] = [];
  let previousAt = 0;
  for (const { messageId, body } of run.deliveries) {
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
    const { status, error } = await post(target, headers, body, connections.agentFor(run.hookKey, target));
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

const port = parentPort;
if (port === null) throw new Error('delivery-worker.js runs as a worker thread of the webhook sender');
// The sender's own messages (delivery-protocol.ts): trusted, their shape is all the type says.
port.on('message', (message: ToDeliveryThread) => {
  if (message.type === 'stop') {
    stopping = true;
    connections.closeAll();
    return;
  }
  const { run } = message;
  void runDeliveries(run).then((tried) => port.postMessage({ runId: run.runId, tried }));
});
