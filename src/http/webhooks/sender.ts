import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  afterFailure,
  afterSuccess,
  wantsEvent,
  type DeliveryAttempt,
  type HookRef,
  type StoredWebhook,
} from '../../domain/webhook.js';
import { MICROS_PER_SECOND, microsFromMillis, type Micros } from '../../domain/time.js';
import type { DeliveryContext, WebhookService } from '../../service/webhooks.js';
import { deliveryBody, messageIdOf } from './delivery-body.js';
import { delivered, type ChangeHead, type TriedDelivery } from './delivery-protocol.js';
import { DeliveryThread, type DeliveryWorker } from './delivery-thread.js';
import { checkTarget, RefusedTarget, type CheckedTarget } from './targets.js';

/** How a delivery ended, as /metrics counts them. */
export type DeliveryOutcome = 'delivered' | 'failed' | 'refused_target';

export interface SenderOptions {
  readonly allowPrivate: boolean;
  /** Each try's outcome, and for a delivered one the time from its commit to its answer. */
  readonly observe?: (outcome: DeliveryOutcome, lagSeconds: number | null) => void;
  /** The delivery thread: the built src/delivery-main.js, given the store's location where it reads the outbox. */
  readonly deliveryWorker: DeliveryWorker;
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
/**
 * While a hook's queue keeps filling, its next run (and the next lookup of its account) waits
 * this long, so that it takes a batch rather than one change: under a burst of commits a
 * delivery then costs the store a share of a few statements, for this much more lag.
 */
const GATHER_MS = 10;
/**
 * What a delivery is written with (the account's zone, the cursor's epoch and purge mark) is read
 * again after this long: a purge or a new zone shows in deliveries within a second.
 */
const CONTEXT_MS = 1000;
/**
 * An account's active hooks, as its last lookup found them, are taken as all it has for this long:
 * meanwhile a wake finding every one of them busy here needs no lookup (each reads its own next
 * batch), and one skipped is looked at once this is up. So a hook made or turned on while the
 * account's other hooks are busy starts within this time.
 */
const KNOWN_MS = 1000;
/** Past every time of the store: a lookup then finds hooks whose retry is still to come too. */
const ANY_TIME: Micros = Number.MAX_SAFE_INTEGER;

type HookKey = `${number}/${string}`;

/** A hook's delivery context while it is busy, and when it was read (performance.now()). */
interface ContextCache {
  value: DeliveryContext | undefined;
  readAt: number;
}

/** A run of a hook's deliveries (#deliverAll): its target, checked after DNS once (and when the URL changes). */
interface RunState {
  target: CheckedTarget | Error | undefined;
}

/** A batch of the outbox read, every change of it, and the tries of those the hook asked for. */
interface Batch {
  readonly events: readonly ChangeHead[];
  readonly tried: readonly DeliveryAttempt[];
}

function keyOf(ref: HookRef): HookKey {
  return `${ref.accountId}/${ref.id}`;
}

/**
 * Delivers the outbox (API.md 4.7). Woken by the change feed (a commit that may have written to
 * the outbox), at start and after a `resync` (everything pending, also what a crashed process
 * left), and by a timer for a retry that is due; never by polling. One sender at a time per hook across processes
 * (the hook's lease), in commit order: a hook's next delivery waits until the one before it
 * succeeded.
 */
export class WebhookSender {
  readonly #owner = randomUUID();
  readonly #busy = new Set<HookKey>();
  /** Hooks woken again while busy: they look once more when done. */
  readonly #again = new Set<HookKey>();
  /**
   * Accounts (or all, at a resync) whose hooks are being looked up (or were, a gathering ago), and
   * whether they were woken again meanwhile: a burst of commits costs one lookup after the one
   * under way, not one each.
   */
  readonly #looking = new Map<string, boolean>();
  /**
   * Of accounts with a hook busy here: their active hooks as the last lookup found them, and when
   * (performance.now()). Dropped once none of the account's hooks is busy any more.
   */
  readonly #known = new Map<number, { readonly ids: readonly string[]; readonly readAt: number }>();
  /** Lookups of accounts whose wakes were skipped (#allBusyHere), due once what was known is old. */
  readonly #deferred = new Map<number, NodeJS.Timeout>();
  readonly #timers = new Map<HookKey, NodeJS.Timeout>();
  /** Looks at accounts whose hooks another sender held, once its lease may have lapsed. */
  readonly #later = new Set<NodeJS.Timeout>();
  readonly #thread: DeliveryThread;
  #unsubscribe: (() => void) | undefined;
  #stopped = false;
  readonly #running = new Set<Promise<void>>();

  constructor(
    private readonly hooks: WebhookService['sending'],
    private readonly options: SenderOptions,
  ) {
    this.#thread = new DeliveryThread(options.deliveryWorker);
  }

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
    for (const timer of this.#deferred.values()) clearTimeout(timer);
    this.#deferred.clear();
    this.#thread.stopTrying();
    await Promise.all([...this.#running]);
    await this.#thread.close();
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
    if (accountId !== undefined && !anyTime && this.#allBusyHere(accountId)) return;
    const slot = `${accountId ?? 'all'}${anyTime ? ' any time' : ''}`;
    if (this.#looking.has(slot)) {
      this.#looking.set(slot, true);
      return;
    }
    this.#looking.set(slot, false);
    this.#track(
      (async () => {
        try {
          for (;;) {
            this.#looking.set(slot, false);
            if (accountId === undefined) {
              for (const ref of await this.hooks.pending(anyTime ? ANY_TIME : this.hooks.clock())) this.#work(ref);
            } else if (anyTime || !this.#allBusyHere(accountId)) {
              await this.#lookAt(accountId, anyTime);
            }
            // Wakes within a gathering after a lookup share the next one: under a stream of
            // commits an account costs a lookup per gathering, not one per commit.
            await sleep(GATHER_MS);
            if (this.#looking.get(slot) !== true || this.#stopped) break;
          }
        } finally {
          this.#looking.delete(slot);
        }
      })(),
    );
  }

  /** Starts the account's hooks with deliveries due; remembered while one of them is busy here. */
  async #lookAt(accountId: number, anyTime: boolean): Promise<void> {
    const hooks = await this.hooks.activeHooks(anyTime ? ANY_TIME : this.hooks.clock(), accountId);
    for (const hook of hooks) if (hook.due) this.#work({ accountId, id: hook.id });
    if (this.#busyIn(accountId))
      this.#known.set(accountId, { ids: hooks.map((hook) => hook.id), readAt: performance.now() });
  }

  /**
   * Whether every active hook of the account, as known for less than KNOWN_MS, is busy here: then a
   * commit's wake reached each of them (#again) and a lookup would find none (their leases hide
   * them). Such a wake is looked at again once what is known is old, for a hook made meanwhile.
   */
  #allBusyHere(accountId: number): boolean {
    const known = this.#known.get(accountId);
    if (known === undefined) return false;
    const age = performance.now() - known.readAt;
    if (age >= KNOWN_MS || !known.ids.every((id) => this.#busy.has(keyOf({ accountId, id })))) return false;
    if (!this.#deferred.has(accountId)) {
      const timer = setTimeout(
        () => {
          this.#deferred.delete(accountId);
          this.#wake(accountId);
        },
        KNOWN_MS - age + 1,
      );
      timer.unref();
      this.#deferred.set(accountId, timer);
    }
    return true;
  }

  #busyIn(accountId: number): boolean {
    const prefix = `${accountId}/`;
    for (const key of this.#busy) if (key.startsWith(prefix)) return true;
    return false;
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
        const context: ContextCache = { value: undefined, readAt: 0 };
        try {
          for (;;) {
            this.#again.delete(key);
            await this.#deliverAll(ref, context);
            if (!this.#again.has(key) || this.#stopped) break;
            await sleep(GATHER_MS);
          }
        } finally {
          this.#busy.delete(key);
          if (!this.#busyIn(ref.accountId)) this.#known.delete(ref.accountId);
        }
      })(),
    );
  }

  /**
   * Delivers the hook's queue in order while it holds the lease; stops at the first failure.
   * Where it stands is recorded once per batch, which also renews the lease, or lets it go when
   * the queue is done and no commit woke the hook during the batch (one after it wakes the hook
   * again: #again).
   */
  async #deliverAll(ref: HookRef, cached: ContextCache): Promise<void> {
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
      const run: RunState = { target: undefined };
      for (;;) {
        const now = this.hooks.clock();
        if (hook.nextAttempt !== null && hook.nextAttempt > now) {
          this.#retryAt(key, ref, hook.nextAttempt - now);
          return;
        }
        const batch = await this.#batch(key, ref, hook, cached, run, leaseUntil);
        if (batch === undefined) return;
        const { events, tried } = batch;
        const { sent, failed, deliveredRev, triedAll } = outcomeOf(events, hook.events, tried, hook.deliveredRev);
        if (failed !== undefined) {
          // Failures count on from where the hook stood, unless a delivery of this batch came through.
          const before = sent.length > 0 ? { ...hook, attempts: 0, failingSince: null } : hook;
          const after = afterFailure({ ...before, deliveredRev }, failed.at);
          await this.hooks.progress(ref, this.#owner, after, [...sent, failed], null);
          held = false;
          if (after.active && after.nextAttempt !== null) this.#retryAt(key, ref, after.nextAttempt - failed.at);
          return;
        }
        // More waits when the batch was full or cut short. A hook woken again while this batch was
        // out (commits keep coming) keeps its lease for its next batch, a gathering later: under
        // a stream of commits a batch costs the store two statements, not a lookup and a claim more.
        const more = !triedAll || events.length === BATCH;
        const woken = this.#again.delete(key);
        const keep = (more || woken) && !this.#stopped;
        leaseUntil = this.hooks.clock() + LEASE_MICROS;
        const recorded = await this.hooks.progress(
          ref,
          this.#owner,
          afterSuccess(deliveredRev),
          sent,
          keep ? leaseUntil : null,
        );
        // Let go by that statement (or lost): nothing to release. A statement that failed may not have.
        held = keep && recorded !== undefined;
        if (!keep || recorded === undefined || !recorded.active) return;
        if (recorded.url !== hook.url) run.target = undefined;
        hook = recorded;
        if (!more) await sleep(GATHER_MS);
        if (this.#stopped) return;
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

  /**
   * The hook's next batch of the outbox (undefined when it holds nothing after where the hook
   * stands) and the tries of the changes it asked for, in order, until one fails or no try could
   * start before the lease needs renewing. Where the delivery thread reads the outbox itself it
   * reads and renders the batch there, off this thread; else, or when it could not (or died), here.
   */
  async #batch(
    key: HookKey,
    ref: HookRef,
    hook: StoredWebhook,
    cached: ContextCache,
    run: RunState,
    leaseUntil: Micros,
  ): Promise<Batch | undefined> {
    const asked = hook.events;
    if (this.options.deliveryWorker.readsOutbox) {
      run.target ??= await checkTarget(hook.url, this.options.allowPrivate).catch(asError);
      const target = run.target;
      if (!(target instanceof Error)) {
        const context = await this.#contextOf(ref.accountId, cached);
        const batch = {
          accountId: ref.accountId,
          hookId: hook.id,
          afterRev: hook.deliveredRev,
          limit: BATCH,
          asked,
          context,
        };
        const result = await this.#thread
          .run({ ...this.#runOf(key, hook, target, leaseUntil), batch })
          .catch(() => undefined);
        const read = result?.read;
        if (result !== undefined && read !== undefined && !('failed' in read)) {
          if (read.length === 0) return undefined;
          const wanted = read.filter((event) => wantsEvent(asked, event.type));
          return { events: read, tried: this.#attempts(hook, wanted, result.tried, false) };
        }
      }
    }
    const events = await this.hooks.events(ref.accountId, hook.deliveredRev, BATCH);
    if (events.length === 0) return undefined;
    const context = await this.#contextOf(ref.accountId, cached);
    const wanted = events.filter((event) => wantsEvent(asked, event.type));
    if (wanted.length === 0) return { events, tried: [] };
    // Checked after DNS once per run (and when the URL changes): each try connects there.
    const target = (run.target ??= await checkTarget(hook.url, this.options.allowPrivate).catch(asError));
    const clock = this.hooks.clock();
    let tried: readonly TriedDelivery[];
    if (target instanceof Error) {
      tried = [{ at: clock, answeredAt: clock, status: null, error: target.message, durationMs: 0 }];
    } else {
      const deliveries = wanted.map((event) => {
        const messageId = messageIdOf(hook.id, event.rev);
        return { messageId, body: deliveryBody(event, messageId, context) };
      });
      tried = await this.#thread
        .run({ ...this.#runOf(key, hook, target, leaseUntil), deliveries })
        .then((result) => result.tried)
        .catch((error: unknown) => [
          { at: clock, answeredAt: this.hooks.clock(), status: null, error: asError(error).message, durationMs: 0 },
        ]);
    }
    return { events, tried: this.#attempts(hook, wanted, tried, target instanceof RefusedTarget) };
  }

  /** What a delivery of the account is written with, read again once a second at most while the hook is busy. */
  async #contextOf(accountId: number, cached: ContextCache): Promise<DeliveryContext> {
    if (cached.value === undefined || performance.now() - cached.readAt > CONTEXT_MS) {
      cached.value = await this.hooks.contextOf(accountId);
      cached.readAt = performance.now();
    }
    return cached.value;
  }

  /** What every run of the hook's deliveries on the thread says. */
  #runOf(key: HookKey, hook: StoredWebhook, target: CheckedTarget, leaseUntil: Micros) {
    const clock = this.hooks.clock();
    return {
      hookKey: key,
      url: hook.url,
      address: target.address,
      secret: hook.secret,
      clockLeadMicros: clock - microsFromMillis(Date.now()),
      startBeforeMs: Date.now() + (leaseUntil - clock - RENEW_BEFORE_MICROS) / 1000,
    };
  }

  /** The tries of the wanted changes, in order, as the hook's log keeps them; each one observed. */
  #attempts(
    hook: StoredWebhook,
    wanted: readonly ChangeHead[],
    tried: readonly TriedDelivery[],
    refused: boolean,
  ): DeliveryAttempt[] {
    const first = wanted[0];
    if (first === undefined) return [];
    return tried.map((attempt, index) => {
      // A try that failed before any was sent (the thread died) is the first change's.
      const event = wanted[index] ?? first;
      const ok = delivered(attempt.status);
      const outcome: DeliveryOutcome = ok ? 'delivered' : refused ? 'refused_target' : 'failed';
      this.options.observe?.(outcome, ok ? (attempt.answeredAt - event.created) / MICROS_PER_SECOND : null);
      const { at, status, error, durationMs } = attempt;
      return {
        at,
        messageId: messageIdOf(hook.id, event.rev),
        type: event.type,
        rev: event.rev,
        status,
        error,
        durationMs,
      };
    });
  }
}

/** What a batch's tries came to (outcomeOf). */
interface BatchOutcome {
  /** The tries that came through, in order. */
  readonly sent: readonly DeliveryAttempt[];
  /** The try that failed, after which nothing was tried. */
  readonly failed: DeliveryAttempt | undefined;
  /** The last change the hook is past. */
  readonly deliveredRev: number;
  /** Whether every wanted change was tried (else the lease needed renewing, or the sender stops). */
  readonly triedAll: boolean;
}

/**
 * Lays the tries of the wanted changes (in order, stopping at a failure) over the whole batch:
 * every change up to the first wanted one not delivered is past, the skipped ones too.
 */
function outcomeOf(
  events: readonly ChangeHead[],
  asked: readonly string[],
  tried: readonly DeliveryAttempt[],
  fromRev: number,
): BatchOutcome {
  const sent: DeliveryAttempt[] = [];
  let deliveredRev = fromRev;
  for (const event of events) {
    if (wantsEvent(asked, event.type)) {
      const attempt = tried[sent.length];
      if (attempt === undefined) return { sent, failed: undefined, deliveredRev, triedAll: false };
      if (!delivered(attempt.status)) return { sent, failed: attempt, deliveredRev, triedAll: true };
      sent.push(attempt);
    }
    deliveredRev = event.rev;
  }
  return { sent, failed: undefined, deliveredRev, triedAll: true };
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
