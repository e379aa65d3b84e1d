import type { DeliveryAttempt, Webhook } from '../../domain/webhook.js';
import { formatDateTime } from './dates.js';
import { jsonString } from './json.js';

function dateTimeOrNull(us: number | null, zone: string): string {
  return us === null ? 'null' : jsonString(formatDateTime(us, zone));
}

/** A hook as GET and POST /v1/webhooks show it; `secret` only in the answer that made it. */
export function renderWebhook(hook: Webhook, zone: string, secret: string | null = null): string {
  return (
    `{"id":${jsonString(hook.id)}` +
    `,"url":${jsonString(hook.url)}` +
    `,"events":[${hook.events.map(jsonString).join(',')}]` +
    `,"active":${String(hook.active)}` +
    `,"secret":${secret === null ? 'null' : jsonString(secret)}` +
    `,"created":${jsonString(formatDateTime(hook.created, zone))}` +
    `,"updated":${jsonString(formatDateTime(hook.updated, zone))}` +
    `,"failing_since":${dateTimeOrNull(hook.failingSince, zone)}` +
    `,"disabled_reason":${hook.disabledReason === null ? 'null' : jsonString(hook.disabledReason)}}`
  );
}

/** One try of a delivery, for the hook's log (GET /v1/webhooks/<id>/deliveries). */
export function renderDeliveryAttempt(attempt: DeliveryAttempt, zone: string): string {
  return (
    `{"at":${jsonString(formatDateTime(attempt.at, zone))}` +
    `,"webhook_id":${jsonString(attempt.messageId)}` +
    `,"type":${jsonString(attempt.type)}` +
    `,"rev":${attempt.rev}` +
    `,"status":${attempt.status === null ? 'null' : String(attempt.status)}` +
    `,"error":${attempt.error === null ? 'null' : jsonString(attempt.error)}` +
    `,"duration_ms":${attempt.durationMs}}`
  );
}
