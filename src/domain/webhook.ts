import { SYNC_KINDS, type RecordsByKind, type SyncKind } from './sync.js';
import { MICROS_PER_DAY, MICROS_PER_SECOND, type Micros } from './time.js';

/** The one event of a change of a kind other than tasks, whose changes have events of their own. */
type ChangedEvent = `${Exclude<SyncKind, 'task'>}.changed`;
export type WebhookEvent =
  'task.created' | 'task.updated' | 'task.completed' | 'task.deleted' | ChangedEvent | 'reminder.due';

function changedEvent(kind: Exclude<SyncKind, 'task'>): ChangedEvent {
  return `${kind}.changed`;
}

/**
 * What a hook may ask for (API.md 4.7); `*` asks for all. A kind's `<kind>.changed` is derived
 * from the kind list, as the outbox triggers of each engine's webhook-schema.ts write it, so a new kind
 * needs no line here.
 */
export const WEBHOOK_EVENTS: readonly WebhookEvent[] = [
  'task.created',
  'task.updated',
  'task.completed',
  'task.deleted',
  ...SYNC_KINDS.flatMap((kind) => (kind === 'task' ? [] : [changedEvent(kind)])),
  'reminder.due',
];

export const MAX_WEBHOOKS_PER_ACCOUNT = 20;

/** A hook as its owner sees it; its secret is shown once, when it is made. */
export interface Webhook {
  readonly id: string;
  readonly url: string;
  /** Event names, or `['*']`. */
  readonly events: readonly string[];
  readonly active: boolean;
  readonly created: Micros;
  readonly updated: Micros;
  /** When the deliveries of this hook started to fail, while they still do. */
  readonly failingSince: Micros | null;
  /** Why the service turned the hook off, when it did. */
  readonly disabledReason: string | null;
}

/** A hook as stored: with its secret (to sign with) and how far its deliveries are. */
export interface StoredWebhook extends Webhook {
  /** Kept as made: every delivery is signed with it (Standard Webhooks' whsec_… form). */
  readonly secret: string;
  /** The `rev` of the last change delivered (or skipped as not asked for). */
  readonly deliveredRev: number;
  /** Failed tries of the delivery at the head of its queue. */
  readonly attempts: number;
  /** When the head delivery may be tried again; null: at once. */
  readonly nextAttempt: Micros | null;
}

export interface NewWebhook {
  readonly id: string;
  readonly url: string;
  readonly events: readonly string[];
  readonly active: boolean;
  readonly secret: string;
  readonly created: Micros;
}

export interface WebhookPatch {
  readonly url?: string;
  readonly events?: readonly string[];
  readonly active?: boolean;
  readonly updated: Micros;
}

/** A change waiting to be delivered: stored in the commit that made it (the outbox). */
export interface OutboxEvent<K extends SyncKind = SyncKind> {
  readonly rev: number;
  readonly type: WebhookEvent;
  readonly kind: K;
  readonly record: RecordsByKind[K];
  /** When the change was committed (the record's `updated`). */
  readonly created: Micros;
}

/** One try of one delivery, for the hook's log (its last 50 are kept). */
export interface DeliveryAttempt {
  readonly at: Micros;
  readonly messageId: string;
  readonly type: WebhookEvent;
  readonly rev: number;
  /** The receiver's HTTP status; null when there was none (refused target, time-out, network). */
  readonly status: number | null;
  readonly error: string | null;
  readonly durationMs: number;
}

/** A hook of an account, as the sender names it. */
export interface HookRef {
  readonly accountId: number;
  readonly id: string;
}

/** The last tries a hook's log keeps (API.md 4.7: Settings shows them). */
export const KEPT_DELIVERIES = 50;

/** Where a hook's deliveries stand after a try (or a skip). */
export interface HookProgress {
  readonly deliveredRev: number;
  readonly attempts: number;
  readonly nextAttempt: Micros | null;
  readonly failingSince: Micros | null;
  readonly active: boolean;
  readonly disabledReason: string | null;
}

/** After a failed try: about 30 s, 2 min, 10 min, 1 h, 6 h, 24 h, then every 24 h (API.md 4.7). */
export const RETRY_DELAYS_SECONDS = [30, 120, 600, 3600, 6 * 3600, 24 * 3600] as const;

/** A hook failing this long is turned off. */
export const GIVE_UP_AFTER_MICROS = 3 * MICROS_PER_DAY;

/** Whether a hook asks for this event. */
export function wantsEvent(events: readonly string[], type: WebhookEvent): boolean {
  return events.includes('*') || events.includes(type);
}

/** Where a hook stands after a failed try at `now`: retried later, or turned off after 3 days of failures. */
export function afterFailure(hook: StoredWebhook, now: Micros): HookProgress {
  const failingSince = hook.failingSince ?? now;
  const attempts = hook.attempts + 1;
  if (now - failingSince >= GIVE_UP_AFTER_MICROS) {
    return {
      deliveredRev: hook.deliveredRev,
      attempts,
      nextAttempt: null,
      failingSince,
      active: false,
      disabledReason: 'turned off: every delivery failed for 3 days',
    };
  }
  const delay = RETRY_DELAYS_SECONDS[Math.min(attempts, RETRY_DELAYS_SECONDS.length) - 1] ?? 24 * 3600;
  return {
    deliveredRev: hook.deliveredRev,
    attempts,
    nextAttempt: now + delay * MICROS_PER_SECOND,
    failingSince,
    active: true,
    disabledReason: null,
  };
}

/** Where a hook stands once the delivery of `rev` succeeded or was skipped. */
export function afterSuccess(rev: number): HookProgress {
  return { deliveredRev: rev, attempts: 0, nextAttempt: null, failingSince: null, active: true, disabledReason: null };
}
