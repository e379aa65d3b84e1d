import type { RecordsByKind, SyncKind } from '../../domain/sync.js';
import type { OutboxEvent } from '../../domain/webhook.js';
import type { DeliveryContext } from '../../service/webhooks.js';
import { RECORD_RESOURCES, type RecordResource } from '../resources.js';
import { encodeCursor } from '../wire/cursor.js';
import { formatDateTime } from '../wire/dates.js';

/** A delivery's id, the same on every try of it: receivers drop repeats by it. */
export function messageIdOf(hookId: string, rev: number): string {
  return `msg_${hookId}_${rev}`;
}

/** `{"type","id","created","data","cursor"}`: the record as /v1 renders it, in the account's zone. */
export function deliveryBody(event: OutboxEvent, messageId: string, context: DeliveryContext): string {
  const { zone, epoch, purgedRev } = context;
  const data = renderRecord(event.kind, event.record, zone);
  return (
    `{"type":${JSON.stringify(event.type)},"id":${JSON.stringify(messageId)},` +
    `"created":${JSON.stringify(formatDateTime(event.created, zone))},"data":${data},` +
    `"cursor":${JSON.stringify(encodeCursor({ epoch, rev: event.rev, purgedRev }))}}`
  );
}

/** The record as /v1 renders it; the outbox row's kind names the renderer. */
function renderRecord<K extends SyncKind>(kind: K, record: RecordsByKind[K], zone: string): string {
  const resource: RecordResource<K> = RECORD_RESOURCES[kind];
  return resource.render(record, zone);
}
