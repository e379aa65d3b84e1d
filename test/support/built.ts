/**
 * The webhook sender's delivery thread as built (`npm test` builds before the tests run): a
 * worker thread runs JavaScript, not these TypeScript sources.
 */
export const BUILT_DELIVERY_WORKER = new URL('../../dist/src/http/webhooks/delivery-worker.js', import.meta.url);
