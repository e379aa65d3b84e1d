import { parentPort, workerData } from 'node:worker_threads';
import type { StoreLocation } from './config/store-location.js';
import { serveDeliveries } from './http/webhooks/delivery-worker.js';
import { openOutboxReader } from './store/open.js';

/*
 * The webhook sender's delivery thread, wiring only: the thread's reader of the outbox (when the
 * sender said the store has one aside, store/open.ts) → its deliveries (http/webhooks/).
 */

const port = parentPort;
if (port === null) throw new Error("delivery-main.js runs as the webhook sender's delivery thread");
// main.ts's own value, cloned into this thread: trusted, its shape is all the type says.
const location = workerData as StoreLocation | null;
const readOutbox =
  location === null ? undefined : openOutboxReader(location).then((reader) => reader.events.bind(reader));
// Handled here: a reader that failed to open answers each run that reads so, and the sender reads
// that batch itself.
readOutbox?.catch(() => undefined);
serveDeliveries(port, readOutbox);
