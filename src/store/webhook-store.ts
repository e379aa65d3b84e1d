import type { Micros } from '../domain/time.js';
import type {
  DeliveryAttempt,
  HookRef,
  HookProgress,
  NewWebhook,
  OutboxEvent,
  StoredWebhook,
  WebhookPatch,
} from '../domain/webhook.js';

/** An active hook of an account; `due`: it has a change to deliver at that time and no live lease. */
export interface ActiveHook {
  readonly id: string;
  readonly due: boolean;
}

/**
 * An account's webhooks, the outbox of their changes and their delivery logs (API.md 4.7). The
 * outbox is filled by the engine in the commit of each change that an active hook of the account
 * wants, so a crash after a commit loses no delivery.
 */
export interface WebhookStore {
  list(accountId: number): Promise<readonly StoredWebhook[]>;
  /** Adds the hook, its deliveries starting after the account's head; 'full' when it has `max` already. */
  insert(accountId: number, hook: NewWebhook, max: number): Promise<StoredWebhook | 'full'>;
  /** Changes what the owner may change; turning a hook on again clears its failures. */
  update(accountId: number, id: string, patch: WebhookPatch): Promise<StoredWebhook | undefined>;
  remove(accountId: number, id: string): Promise<boolean>;
  /**
   * Active hooks of every account with a change to deliver that is due at `now` and no live lease
   * (administration: at start, after the change feed was lost).
   */
  pending(now: Micros): Promise<readonly HookRef[]>;
  /** The account's active hooks, each with whether `pending` would find it at `now`. */
  activeHooks(now: Micros, accountId: number): Promise<readonly ActiveHook[]>;
  /**
   * Takes the hook's lease for `owner` until `until` (or renews it) unless another owner holds a
   * live one: one sender at a time per hook, across processes. The hook as it stands, or undefined.
   */
  claim(hook: HookRef, owner: string, now: Micros, until: Micros): Promise<StoredWebhook | undefined>;
  /** The account's changes after `afterRev` in the outbox, in commit order. */
  events(accountId: number, afterRev: number, limit: number): Promise<readonly OutboxEvent[]>;
  /**
   * Records where the hook stands after tries and skips (the tries in its log, which keeps the
   * last 50), if `owner` still holds its lease, and renews the lease until `until` or, when null,
   * lets it go; a hook the owner turned off meanwhile stays off. Outbox rows every active hook is
   * past go. The hook as it now stands; undefined when the lease was lost.
   */
  progress(
    hook: HookRef,
    owner: string,
    progress: HookProgress,
    attempts: readonly DeliveryAttempt[],
    until: Micros | null,
  ): Promise<StoredWebhook | undefined>;
  release(hook: HookRef, owner: string): Promise<void>;
  /** The hook's last 50 tries, newest first. */
  deliveries(hook: HookRef): Promise<readonly DeliveryAttempt[]>;
}

/**
 * The outbox read on a thread of its own (the webhook sender's delivery thread), over a connection
 * of its own: `events` as WebhookStore's, answered at once. Only where reads never wait for the
 * writer (SQLite in WAL mode): store/open.ts says where.
 */
export interface OutboxReader {
  events(accountId: number, afterRev: number, limit: number): readonly OutboxEvent[];
  close(): void;
}
