import { randomUUID } from 'node:crypto';
import {
  afterFailure,
  afterSuccess,
  wantsEvent,
  type DeliveryAttempt,
  type HookRef,
  type OutboxEvent,
  type StoredWebhook,
} from '../../domain/webhook.js';
import { MICROS_PER_SECOND, type Micros } from '../../domain/time.js';
import type { DeliveryContext, WebhookService } from '../../service/webhooks.js';
import type { RecordsByKind, SyncKind } from '../../domain/sync.js';
import { RECORD_RESOURCES, type RecordResource } from '../resources.js';
import { encodeCursor } from '../wire/cursor.js';
import { formatDateTime } from '../wire/dates.js';
import { post } from './post.js';
import { signature } from './signing.js';
import { ReceiverConnections } from './connections.js';
import { checkTarget, RefusedTarget, type CheckedTarget } from './targets.js';

/** How a delivery ended, as /metrics counts them. */
export type DeliveryOutcome = 'delivered' | 'failed' | 'refused_target';

export interface SenderOptions {
  readonly allowPrivate: boolean;
  /** Each try's outcome, and for a delivered one the time from its commit to its answer. */
  readonly observe?: (outcome: DeliveryOutcome, lagSeconds: number | null) => void;
}

/**
 * A sender holds a hook this long per renewal (before each try, which takes 10 s at most):
 * another process, or this one restarted after a crash, takes over once it lapses.
 */
const LEASE_MICROS = 15 * MICROS_PER_SECOND;
/** A try takes 10 s at most (post.ts): the lease is renewed when less than this is left. */
const RENEW_BEFORE_MICROS = 11 * MICROS_PER_SECOND;
/**
 * Outbox rows read at once. Where a hook stands is recorded once per batch (and before a lease
 * renewal, and at a failure): a crash in between sends the batch's delivered changes again, with
 * their same webhook-id (at least once, API.md 4.7), and a busy hook costs the store three
 * statements per batch instead of one per delivery.
 */
const BATCH = 100;
/** Past every time of the store: `pending` then finds hooks whose retry is still to come too. */
const ANY_TIME: Micros = Number.MAX_SAFE_INTEGER;

type HookKey = `${number}/${string}`;

function keyOf(ref: HookRef): HookKey {
  return `${ref.accountId}/${ref.id}`;
}

/**
 * Delivers the outbox (API.md 4.7). Woken by the change feed (a commit that wrote to the outbox),
 * at start and after a `resync` (everything pending, also what a crashed process left), and by a
 * timer for a retry that is due; never by polling. One sender at a time per hook across processes
 * (the hook's lease), in commit order: a hook's next delivery waits until the one before it
 * succeeded.
 */
export class WebhookSender {
  readonly #owner = randomUUID();
  readonly #busy = new Set<HookKey>();
  /** Hooks woken again while busy: they look once more when done. */
  readonly #again = new Set<HookKey>();
  /**
   * Accounts (or all, at a resync) whose hooks are being looked up, and whether they were woken
   * again meanwhile: a burst of commits costs one lookup after the one under way, not one each.
   */
  readonly #looking = new Map<string, boolean>();
  readonly #timers = new Map<HookKey, NodeJS.Timeout>();
  /** Looks at accounts whose hooks another sender held, once its lease may have lapsed. */
  readonly #later = new Set<NodeJS.Timeout>();
  readonly #connections = new ReceiverConnections();
  #unsubscribe: (() => void) | undefined;
  #stopped = false;
  readonly #running = new Set<Promise<void>>();

  constructor(
    private readonly hooks: WebhookService['sending'],
    private readonly options: SenderOptions,
  ) {}

  start(): void {
    this.#unsubscribe = this.hooks.subscribe((note) => {
      if (note.type === 'resync') this.#wake(undefined);
      // Not at every commit: a look costs the store a read, and most accounts have no hook.
      else if (note.type === 'outbox' || !this.hooks.tellsOutbox()) this.#wake(note.accountId);
    });
    this.#wake(undefined);
  }

  /** Stops waking, and waits for the tries under way (each bounded to 10 s). */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unsubscribe?.();
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    for (const timer of this.#later) clearTimeout(timer);
    this.#later.clear();
    await Promise.all([...this.#running]);
    this.#connections.closeAll();
  }

  /**
   * Looks for the account's hooks with deliveries due (every account's when none is named);
   * `anyTime`: hooks waiting for a retry too (their timer was another process's, or is lost).
   */
  #wake(accountId: number | undefined, anyTime = accountId === undefined): void {
    if (this.#stopped) return;
    // A hook of the account being delivered may have read the outbox before this commit, and its
    // live lease hides it from the lookup: it looks once more when done.
    const prefix = `${accountId}/`;
    for (const key of this.#busy) if (accountId === undefined || key.startsWith(prefix)) this.#again.add(key);
    const slot = `${accountId ?? 'all'}${anyTime ? ' any time' : ''}`;
    if (this.#looking.has(slot)) {
      this.#looking.set(slot, true);
      return;
    }
    this.#looking.set(slot, false);
    this.#track(
      (async () => {
        try {
          do {
            this.#looking.set(slot, false);
            const refs = await this.hooks.pending(anyTime ? ANY_TIME : this.hooks.clock(), accountId);
            for (const ref of refs) this.#work(ref);
          } while (this.#looking.get(slot) === true && !this.#stopped);
        } finally {
          this.#looking.delete(slot);
        }
      })(),
    );
  }

  #track(work: Promise<void>): void {
    const running = work.catch(() => undefined).finally(() => this.#running.delete(running));
    this.#running.add(running);
  }

  #work(ref: HookRef): void {
    const key = keyOf(ref);
    if (this.#busy.has(key)) {
      this.#again.add(key);
      return;
    }
    this.#busy.add(key);
    this.#track(
      (async () => {
        try {
          do {
            this.#again.delete(key);
            await this.#deliverAll(ref);
          } while (this.#again.has(key) && !this.#stopped);
        } finally {
          this.#busy.delete(key);
        }
      })(),
    );
  }

  /**
   * Delivers the hook's queue in order while it holds the lease; stops at the first failure.
   * Where it stands is recorded once per batch, which also renews the lease, or lets it go when
   * the queue is done (a commit meanwhile wakes the hook again: #again).
   */
  async #deliverAll(ref: HookRef): Promise<void> {
    const key = keyOf(ref);
    let leaseUntil = this.hooks.clock() + LEASE_MICROS;
    let hook = await this.hooks.claim(ref, this.#owner, leaseUntil);
    if (hook === undefined) {
      // Another sender holds it (or one that died does, until its lease lapses): look again
      // then, in case nobody is left to finish.
      this.#lookAgainLater(ref.accountId);
      return;
    }
    let held = true;
    try {
      let context: DeliveryContext | undefined;
      let target: Promise<CheckedTarget | Error> | undefined;
      for (;;) {
        const now = this.hooks.clock();
        if (hook.nextAttempt !== null && hook.nextAttempt > now) {
          this.#retryAt(key, ref, hook.nextAttempt - now);
          return;
        }
        const events = await this.hooks.events(ref.accountId, hook.deliveredRev, BATCH);
        if (events.length === 0) return;
        context ??= await this.hooks.contextOf(ref.accountId);
        const sent: DeliveryAttempt[] = [];
        let deliveredRev = hook.deliveredRev;
        let failed: DeliveryAttempt | undefined;
        let renew = false;
        for (const event of events) {
          // Renewed before a try that could outlast it (10 s at most), so a slow receiver never does.
          renew = leaseUntil - this.hooks.clock() < RENEW_BEFORE_MICROS;
          if (this.#stopped || renew) break;
          if (wantsEvent(hook.events, event.type)) {
            // Checked after DNS once per run (and when the URL changes): each try connects there.
            target ??= checkTarget(hook.url, this.options.allowPrivate).catch((error: unknown) =>
              error instanceof Error ? error : new Error(String(error)),
            );
            const attempt = await this.#send(key, hook, event, context, await target);
            if (attempt.status === null || attempt.status < 200 || attempt.status >= 300) {
              failed = attempt;
              break;
            }
            sent.push(attempt);
          }
          deliveredRev = event.rev;
        }
        if (failed !== undefined) {
          // Failures count on from where the hook stood, unless a delivery of this batch came through.
          const before = sent.length > 0 ? { ...hook, attempts: 0, failingSince: null } : hook;
          const after = afterFailure({ ...before, deliveredRev }, failed.at);
          held = false;
          await this.hooks.progress(ref, this.#owner, after, [...sent, failed], null);
          if (after.active && after.nextAttempt !== null) this.#retryAt(key, ref, after.nextAttempt - failed.at);
          return;
        }
        // More may wait when the batch was full or cut short; else a commit meanwhile wakes it again.
        const more = (renew || events.length === BATCH) && !this.#stopped;
        leaseUntil = this.hooks.clock() + LEASE_MICROS;
        held = more;
        const recorded = await this.hooks.progress(
          ref,
          this.#owner,
          afterSuccess(deliveredRev),
          sent,
          more ? leaseUntil : null,
        );
        if (!more || recorded === undefined || !recorded.active) return;
        if (recorded.url !== hook.url) target = undefined;
        hook = recorded;
      }
    } finally {
      if (held) await this.hooks.release(ref, this.#owner).catch(() => undefined);
    }
  }

  #lookAgainLater(accountId: number): void {
    const timer = setTimeout(() => {
      this.#later.delete(timer);
      this.#wake(accountId, true);
    }, LEASE_MICROS / 1000);
    timer.unref();
    this.#later.add(timer);
  }

  #retryAt(key: HookKey, ref: HookRef, inMicros: number): void {
    clearTimeout(this.#timers.get(key));
    const timer = setTimeout(
      () => {
        this.#timers.delete(key);
        this.#work(ref);
      },
      Math.max(0, Math.ceil(inMicros / 1000)),
    );
    timer.unref();
    this.#timers.set(key, timer);
  }

  async #send(
    key: HookKey,
    hook: StoredWebhook,
    event: OutboxEvent,
    context: DeliveryContext,
    target: CheckedTarget | Error,
  ): Promise<DeliveryAttempt> {
    // The same id on every try of this delivery: receivers drop repeats by it.
    const messageId = `msg_${hook.id}_${event.rev}`;
    const at = this.hooks.clock();
    const started = performance.now();
    let status: number | null = null;
    let error: string | null;
    let outcome: DeliveryOutcome;
    if (target instanceof Error) {
      outcome = target instanceof RefusedTarget ? 'refused_target' : 'failed';
      error = target.message;
    } else {
      const body = deliveryBody(event, messageId, context);
      const timestamp = Math.floor(at / MICROS_PER_SECOND);
      const headers = {
        'user-agent': 'task-service webhooks',
        'webhook-id': messageId,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signature(hook.secret, messageId, timestamp, body),
      };
      ({ status, error } = await post(target, headers, body, this.#connections.agentFor(key, target)));
      outcome = status !== null && status >= 200 && status < 300 ? 'delivered' : 'failed';
      if (error === null && outcome === 'failed') error = `answered ${status ?? 'nothing'}`;
    }
    const durationMs = Math.round(performance.now() - started);
    this.options.observe?.(
      outcome,
      outcome === 'delivered' ? (this.hooks.clock() - event.created) / MICROS_PER_SECOND : null,
    );
    return { at, messageId, type: event.type, rev: event.rev, status, error, durationMs };
  }
}

/** `{"type","id","created","data","cursor"}`: the record as /v1 renders it, in the account's zone. */
function deliveryBody(event: OutboxEvent, messageId: string, context: DeliveryContext): string {
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
