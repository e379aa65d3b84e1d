import { z } from 'zod';
import { WEBHOOK_EVENTS } from '../../domain/webhook.js';
import { WireError } from '../wire/errors.js';
import { firstIssue } from './issues.js';
import { text } from './text.js';

/** The longest hook URL taken. */
const URL_MAX = 2000;

const EVENT_NAMES: readonly string[] = WEBHOOK_EVENTS;

const events = z
  .array(z.string())
  .min(1)
  .max(WEBHOOK_EVENTS.length)
  .refine(
    (names) => (names.length === 1 && names[0] === '*') || names.every((name) => EVENT_NAMES.includes(name)),
    `each one of ${WEBHOOK_EVENTS.join(', ')}, or ["*"]`,
  );

export const webhookShape = z.object({
  id: text(1, 64).optional(),
  url: text(1, URL_MAX).optional(),
  events: events.optional(),
  active: z.boolean().optional(),
  deleted: z.union([z.string(), z.boolean(), z.null()]).optional(),
});

/** What a POST /v1/webhooks asks: make a hook, change one, or delete one. */
export type WebhookRequest =
  | {
      readonly action: 'create';
      readonly url: string;
      readonly events: readonly string[];
      readonly active: boolean;
    }
  | {
      readonly action: 'update';
      readonly id: string;
      readonly url?: string;
      readonly events?: readonly string[];
      readonly active?: boolean;
    }
  | { readonly action: 'delete'; readonly id: string };

/**
 * https only; plain http only when the operator lets hooks reach their own network
 * (`--webhook-allow-private`), where TLS may not be set up.
 */
function checkedUrl(url: string, allowHttp: boolean): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw WireError.invalidParameter('url', 'not a URL');
  }
  const httpAllowed = allowHttp && parsed.protocol === 'http:';
  if (parsed.protocol !== 'https:' && !httpAllowed) throw WireError.invalidParameter('url', 'must be https');
  if (parsed.username !== '' || parsed.password !== '') throw WireError.invalidParameter('url', 'no credentials in it');
  return parsed.href;
}

export function readWebhookRequest(body: unknown, allowHttp: boolean): WebhookRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw WireError.invalidParameter('body', 'expected an object');
  }
  const parsed = webhookShape.safeParse(body);
  if (!parsed.success) throw firstIssue(parsed.error);
  const { id, url, events: names, active, deleted } = parsed.data;
  const checked = url === undefined ? undefined : checkedUrl(url, allowHttp);
  if (id === undefined) {
    if (checked === undefined) throw WireError.invalidParameter('url', 'required');
    if (names === undefined) throw WireError.invalidParameter('events', 'required');
    return { action: 'create', url: checked, events: names, active: active ?? true };
  }
  if (deleted !== undefined && deleted !== null && deleted !== false) return { action: 'delete', id };
  return {
    action: 'update',
    id,
    ...(checked === undefined ? {} : { url: checked }),
    ...(names === undefined ? {} : { events: names }),
    ...(active === undefined ? {} : { active }),
  };
}
