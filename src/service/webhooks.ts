import { randomBytes } from 'node:crypto';
import { invalid } from '../domain/errors.js';
import type { Clock, Micros } from '../domain/time.js';
import {
  MAX_WEBHOOKS_PER_ACCOUNT,
  type DeliveryAttempt,
  type OutboxEvent,
  type StoredWebhook,
  type Webhook,
  type HookRef,
} from '../domain/webhook.js';
import type { ChangeListener } from '../store/change-feed.js';
import type { Store } from '../store/store.js';
import type { ActiveHook, OutboxReader, WebhookStore } from '../store/webhook-store.js';
import { newRecordId } from './ids.js';

/** What the deliveries of an account are written with. */
export interface DeliveryContext {
  readonly zone: string;
  readonly epoch: string;
  readonly purgedRev: number;
}

/** The outbox as the delivery thread reads it, over a connection of its own (OutboxReader). */
export type ReadOutbox = OutboxReader['events'];

/** What the owner sends to make a hook, checked at the edge. */
export interface WebhookInput {
  readonly url: string;
  readonly events: readonly string[];
  readonly active: boolean;
}

export interface WebhookChange {
  readonly url?: string;
  readonly events?: readonly string[];
  readonly active?: boolean;
}

/** A hook as its owner sees it: never its secret, but for once, right after it was made. */
function shown(hook: StoredWebhook): Webhook {
  return {
    id: hook.id,
    url: hook.url,
    events: hook.events,
    active: hook.active,
    created: hook.created,
    updated: hook.updated,
    failingSince: hook.failingSince,
    disabledReason: hook.disabledReason,
  };
}

/** Standard Webhooks' form of a secret: `whsec_` and the base64 of 24 random bytes, the HMAC key. */
function newSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/** An account's webhooks (API.md 4.7), and what the sender needs of the store to deliver them. */
export class WebhookService {
  constructor(
    private readonly store: Store,
    private readonly now: Clock,
  ) {}

  async list(accountId: number): Promise<readonly Webhook[]> {
    return (await this.store.webhooks.list(accountId)).map(shown);
  }

  /** Makes a hook; its secret is in the answer, and never again. More than 20: refused, nothing stored. */
  async create(accountId: number, input: WebhookInput): Promise<{ readonly hook: Webhook; readonly secret: string }> {
    const secret = newSecret();
    const made = await this.store.webhooks.insert(
      accountId,
      { id: newRecordId(), ...input, secret, created: this.now() },
      MAX_WEBHOOKS_PER_ACCOUNT,
    );
    if (made === 'full') throw invalid('url', `at most ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks per account`);
    return { hook: shown(made), secret };
  }

  /** Changes a hook; turning it on again clears its failures. */
  async update(accountId: number, id: string, change: WebhookChange): Promise<Webhook> {
    const hook = await this.store.webhooks.update(accountId, id, { ...change, updated: this.now() });
    if (hook === undefined) throw invalid('id', 'no such webhook');
    return shown(hook);
  }

  async remove(accountId: number, id: string): Promise<void> {
    if (!(await this.store.webhooks.remove(accountId, id))) throw invalid('id', 'no such webhook');
  }

  async deliveries(accountId: number, id: string): Promise<readonly DeliveryAttempt[]> {
    return this.store.webhooks.deliveries({ accountId, id });
  }

  /** The sender's part: hooks with work, their leases, the outbox, and their progress. */
  readonly sending = {
    clock: (): Micros => this.now(),
    /** Every commit of every process, from the store's change feed. */
    subscribe: (listener: ChangeListener): (() => void) => this.store.changes.subscribe(listener),
    /** Whether the feed tells `outbox` notes; if not, every `changed` note may have deliveries. */
    tellsOutbox: (): boolean => this.store.changes.tellsOutbox,
    pending: (now: Micros): Promise<readonly HookRef[]> => this.store.webhooks.pending(now),
    activeHooks: (now: Micros, accountId: number): Promise<readonly ActiveHook[]> =>
      this.store.webhooks.activeHooks(now, accountId),
    claim: (hook: HookRef, owner: string, until: Micros): Promise<StoredWebhook | undefined> =>
      this.store.webhooks.claim(hook, owner, this.now(), until),
    events: (accountId: number, afterRev: number, limit: number): Promise<readonly OutboxEvent[]> =>
      this.store.webhooks.events(accountId, afterRev, limit),
    // As the port says it (WebhookStore.progress).
    progress: (...args: Parameters<WebhookStore['progress']>): ReturnType<WebhookStore['progress']> =>
      this.store.webhooks.progress(...args),
    release: (hook: HookRef, owner: string): Promise<void> => this.store.webhooks.release(hook, owner),
    /** What a delivery of the account is written with: its zone, and for cursors the store's epoch and the purge mark. */
    contextOf: async (accountId: number): Promise<DeliveryContext> => {
      const [account, head, identity] = await Promise.all([
        this.store.getAccount(accountId),
        this.store.head(accountId),
        this.store.identity(),
      ]);
      return { zone: account?.timezone ?? 'UTC', epoch: identity.epoch, purgedRev: head?.purgedRev ?? 0 };
    },
  };
}
