import type { SyncKind } from '../../domain/sync.js';
import { WEBHOOK_EVENTS, type WebhookEvent } from '../../domain/webhook.js';
import { isSyncKind } from './kept-outcome.js';

/** The kind of an outbox row, as the triggers wrote it. */
export function outboxKind(raw: unknown): SyncKind {
  if (!isSyncKind(raw)) throw new Error(`an outbox row names no kind: ${String(raw)}`);
  return raw;
}

/** An event name as stored (an outbox row, a delivery log), checked. */
export function storedEvent(raw: unknown): WebhookEvent {
  const known = WEBHOOK_EVENTS.find((name) => name === raw);
  if (known === undefined) throw new Error(`not an event: ${String(raw)}`);
  return known;
}
