import { randomUUID } from 'node:crypto';
import {
  afterFailure,
  afterSuccess,
  wantsEvent,
  type DeliveryAttempt,
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
import { checkTarget, RefusedTarget } from './targets.js';

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
/** Outbox rows read at once. */
const BATCH = 100;
/** Past every time of the store: `pending` then finds hooks whose retry is still to come too. */
const ANY_TIME: Micros = Number.MAX_SAFE_INTEGER;

type HookKey = `${number}/${string}`;

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
  readonly #timers = new Map<HookKey, NodeJS.Timeout>();
  /** Looks at accounts whose hooks another sender held, once its lease may have lapsed. */
  readonly #later = new Set<NodeJS.Timeout>();
  #unsubscribe: (() => void) | undefined;
  #stopped = false;
  readonly #running = new Set<Promise<void>>();

  constructor(
    private readonly hooks: WebhookService['sending'],
    private readonly options: SenderOptions,
  ) {}

  start(): void {
    this.#unsubscribe = this.hooks.subscribe((note) => {
      if (note.type === 'resync') this.#wake(undefined, ANY_TIME);
      // Not at every commit: a look costs the store a read, and most accounts have no hook.
      else if (note.type === 'outbox' || !this.hooks.tellsOutbox()) this.#wake(note.accountId, this.hooks.clock());
    });
    this.#wake(undefined, ANY_TIME);
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
  }

  #wake(accountId: number | undefined, dueBy: Micros): void {
    if (this.#stopped) return;
    this.#track(
      (async () => {
        const refs = await this.hooks.pending(dueBy, accountId);
        for (const ref of refs) this.#work(ref.accountId, ref.id);
      })(),
    );
  }

  #track(work: Promise<void>): void {
    const running = work.catch(() => undefined).finally(() => this.#running.delete(running));
    this.#running.add(running);
  }

  #work(accountId: number, id: string): void {
    const key: HookKey = `${accountId}/${id}`;
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
            await this.#deliverAll({ accountId, id });
          } while (this.#again.has(key) && !this.#stopped);
        } finally {
          this.#busy.delete(key);
        }
      })(),
    );
  }

  /** Delivers the hook's queue in order while it holds the lease; stops at the first failure. */
  async #deliverAll(ref: { readonly accountId: number; readonly id: string }): Promise<void> {
    const key: HookKey = `${ref.accountId}/${ref.id}`;
    let context: DeliveryContext | undefined;
    try {
      for (;;) {
        if (this.#stopped) return;
        let leaseUntil = this.hooks.clock() + LEASE_MICROS;
        const hook = await this.hooks.claim(ref, this.#owner, leaseUntil);
        if (hook === undefined) {
          // Another sender holds it (or one that died does, until its lease lapses): look again
          // then, in case nobody is left to finish.
          this.#lookAgainLater(ref.accountId);
          return;
        }
        const now = this.hooks.clock();
        if (hook.nextAttempt !== null && hook.nextAttempt > now) {
          this.#retryAt(key, ref, hook.nextAttempt - now);
          return;
        }
        const events = await this.hooks.events(ref.accountId, hook.deliveredRev, BATCH);
        if (events.length === 0) return;
        context ??= await this.hooks.contextOf(ref.accountId);
        let current: StoredWebhook = hook;
        for (const event of events) {
          if (this.#stopped) return;
          // Renewed before a try that could outlast it (10 s at most), so a slow receiver never does.
          if (leaseUntil - this.hooks.clock() < RENEW_BEFORE_MICROS) {
            leaseUntil = this.hooks.clock() + LEASE_MICROS;
            if ((await this.hooks.claim(ref, this.#owner, leaseUntil)) === undefined) return;
          }
          if (!wantsEvent(current.events, event.type)) {
            if (!(await this.hooks.progress(ref, this.#owner, afterSuccess(event.rev), null))) return;
            current = { ...current, deliveredRev: event.rev };
            continue;
          }
          const attempt = await this.#send(current, event, context);
          if (attempt.status !== null && attempt.status >= 200 && attempt.status < 300) {
            if (!(await this.hooks.progress(ref, this.#owner, afterSuccess(event.rev), attempt))) return;
            current = { ...current, deliveredRev: event.rev, attempts: 0, failingSince: null, nextAttempt: null };
            continue;
          }
          const after = afterFailure(current, attempt.at);
          await this.hooks.progress(ref, this.#owner, after, attempt);
          if (after.active && after.nextAttempt !== null) this.#retryAt(key, ref, after.nextAttempt - attempt.at);
          return;
        }
      }
    } finally {
      await this.hooks.release(ref, this.#owner).catch(() => undefined);
    }
  }

  #lookAgainLater(accountId: number): void {
    const timer = setTimeout(() => {
      this.#later.delete(timer);
      this.#wake(accountId, ANY_TIME);
    }, LEASE_MICROS / 1000);
    timer.unref();
    this.#later.add(timer);
  }

  #retryAt(key: HookKey, ref: { readonly accountId: number; readonly id: string }, inMicros: number): void {
    clearTimeout(this.#timers.get(key));
    const timer = setTimeout(
      () => {
        this.#timers.delete(key);
        this.#work(ref.accountId, ref.id);
      },
      Math.max(0, Math.ceil(inMicros / 1000)),
    );
    timer.unref();
    this.#timers.set(key, timer);
  }

  async #send(hook: StoredWebhook, event: OutboxEvent, context: DeliveryContext): Promise<DeliveryAttempt> {
    // The same id on every try of this delivery: receivers drop repeats by it.
    const messageId = `msg_${hook.id}_${event.rev}`;
    const body = deliveryBody(event, messageId, context);
    const at = this.hooks.clock();
    const started = performance.now();
    const timestamp = Math.floor(at / MICROS_PER_SECOND);
    let status: number | null = null;
    let error: string | null;
    let outcome: DeliveryOutcome;
    try {
      const target = await checkTarget(hook.url, this.options.allowPrivate);
      ({ status, error } = await post(
        target,
        {
          'user-agent': 'task-service webhooks',
          'webhook-id': messageId,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signature(hook.secret, messageId, timestamp, body),
        },
        body,
      ));
      outcome = status !== null && status >= 200 && status < 300 ? 'delivered' : 'failed';
      if (error === null && outcome === 'failed') error = `answered ${status ?? 'nothing'}`;
    } catch (thrown) {
      outcome = thrown instanceof RefusedTarget ? 'refused_target' : 'failed';
      error = thrown instanceof Error ? thrown.message : String(thrown);
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
