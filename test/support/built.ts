import type { StoreLocation } from '../../src/config/store-location.js';
import type { DeliveryWorker } from '../../src/http/webhooks/delivery-thread.js';
import { outboxReadableAside } from '../../src/store/open.js';

/**
 * The webhook sender's delivery thread as built (`npm test` builds before the tests run): a
 * worker thread runs JavaScript, not these TypeScript sources.
 */
export const BUILT_DELIVERY_MAIN = new URL('../../dist/src/delivery-main.js', import.meta.url);

/** The built delivery thread for the store at `location`, as serve starts it (main.ts). */
export function builtDeliveryWorker(location: StoreLocation): DeliveryWorker {
  const readsOutbox = outboxReadableAside(location);
  return { file: BUILT_DELIVERY_MAIN, data: readsOutbox ? location : null, readsOutbox };
}
