/**
 * The account's webhooks and their delivery logs (API.md 4.7), for Settings. Not synced nor kept
 * in the browser's copy: read when Settings shows them, changed at once (the section says if a
 * change failed). The SDK has no webhook calls; its transport sends these, so errors, unescaping
 * of the wire's text and the app's "offline" (answerOf) are the same as for every other call.
 */
import { parseWireDate, TaskServiceClient, unescapeHtml } from '../../src/client/index.js';
import { answerOf, fetchFresh } from './api.ts';
import { currentToken } from './token.ts';

export const WEBHOOK_EVENTS = [
  'task.created',
  'task.updated',
  'task.completed',
  'task.deleted',
  'project.changed',
  'context.changed',
  'reminder.due',
] as const;

export interface Webhook {
  readonly id: string;
  readonly url: string;
  /** Event names, or `['*']` for all. */
  readonly events: readonly string[];
  readonly active: boolean;
  /** Only in the answer that made the hook: shown once. */
  readonly secret: string | null;
  readonly failingSince: Date | null;
  /** Why the server turned it off (3 days of failures), or null. */
  readonly disabledReason: string | null;
}

/** One try of a delivery, newest first in a hook's log. */
export interface DeliveryTry {
  readonly at: Date;
  readonly type: string;
  /** The receiver's HTTP status, or null when it gave none (refused, timed out). */
  readonly status: number | null;
  readonly error: string | null;
  readonly durationMs: number;
}

export interface WebhookChange {
  readonly url?: string;
  readonly events?: readonly string[];
  readonly active?: boolean;
}

type Wire = Readonly<Record<string, unknown>>;

function isWire(value: unknown): value is Wire {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function textOf(record: Wire, name: string): string {
  const value = record[name];
  if (typeof value !== 'string') throw new TypeError(`the service answered a webhook without ${name}`);
  return unescapeHtml(value);
}

function textOrNull(record: Wire, name: string): string | null {
  return record[name] === null ? null : textOf(record, name);
}

function numberOrNull(record: Wire, name: string): number | null {
  const value = record[name];
  return typeof value === 'number' ? value : null;
}

function entriesOf(answer: unknown): Wire[] {
  const entries = isWire(answer) ? answer['entries'] : undefined;
  if (!Array.isArray(entries)) throw new TypeError('the service answered without entries');
  return entries.filter(isWire);
}

function webhookOf(record: unknown): Webhook {
  if (!isWire(record)) throw new TypeError('the service answered something other than a webhook');
  const events = record['events'];
  const failing = textOrNull(record, 'failing_since');
  return {
    id: textOf(record, 'id'),
    url: textOf(record, 'url'),
    events: Array.isArray(events) ? events.filter((name) => typeof name === 'string') : [],
    active: record['active'] === true,
    secret: textOrNull(record, 'secret'),
    failingSince: failing === null ? null : parseWireDate(failing),
    disabledReason: textOrNull(record, 'disabled_reason'),
  };
}

function deliveryOf(record: Wire): DeliveryTry {
  return {
    at: parseWireDate(textOf(record, 'at')),
    type: textOf(record, 'type'),
    status: numberOrNull(record, 'status'),
    error: textOrNull(record, 'error'),
    durationMs: numberOrNull(record, 'duration_ms') ?? 0,
  };
}

function client(): TaskServiceClient {
  return new TaskServiceClient({
    baseUrl: location.origin,
    token: currentToken() ?? '',
    fetch: fetchFresh,
    retry: { retries: 0 },
  });
}

async function send(method: 'GET' | 'POST', path: string, body?: object): Promise<unknown> {
  return answerOf(client().transport.send({ method, path, ...(body === undefined ? {} : { body }) }));
}

export async function listWebhooks(): Promise<Webhook[]> {
  return entriesOf(await send('GET', 'v1/webhooks')).map(webhookOf);
}

/** Makes a hook; its answer carries the secret, this once. */
export async function addWebhook(url: string, events: readonly string[]): Promise<Webhook> {
  return webhookOf(await send('POST', 'v1/webhooks', { url, events, active: true }));
}

export async function changeWebhook(id: string, change: WebhookChange): Promise<Webhook> {
  return webhookOf(await send('POST', 'v1/webhooks', { id, ...change }));
}

/** Deletes a hook and its log. */
export async function deleteWebhook(id: string): Promise<void> {
  await send('POST', 'v1/webhooks', { id, deleted: true });
}

/** The hook's last 50 tries, newest first. */
export async function deliveriesOf(id: string): Promise<DeliveryTry[]> {
  return entriesOf(await send('GET', `v1/webhooks/${encodeURIComponent(id)}/deliveries`)).map(deliveryOf);
}
