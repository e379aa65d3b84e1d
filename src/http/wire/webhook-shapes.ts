/** The wire shapes of /v1/webhooks (API.md 4.7), for the OpenAPI document and the tests. */
import { z } from 'zod';
import { escaped, wireDateTime } from './task-fields.js';

export const wireWebhook = z
  .strictObject({
    id: escaped,
    url: escaped,
    events: z.array(escaped),
    active: z.boolean(),
    secret: escaped.nullable().meta({ description: 'Only in the answer that made the hook; null after.' }),
    created: wireDateTime,
    updated: wireDateTime,
    failing_since: wireDateTime.nullable(),
    disabled_reason: escaped.nullable(),
  })
  .meta({ description: 'A webhook of the account.' });

export const webhookList = z
  .strictObject({ entries: z.array(wireWebhook) })
  .meta({ description: "The account's webhooks." });

export const webhookDeleted = z
  .strictObject({ id: escaped, deleted: z.literal(true) })
  .meta({ description: 'The webhook is gone, its log with it.' });

export const deliveryLog = z
  .strictObject({
    entries: z.array(
      z.strictObject({
        at: wireDateTime,
        webhook_id: escaped,
        type: escaped,
        rev: z.int(),
        status: z.int().nullable(),
        error: escaped.nullable(),
        duration_ms: z.int(),
      }),
    ),
  })
  .meta({ description: "The hook's last 50 tries, newest first." });
