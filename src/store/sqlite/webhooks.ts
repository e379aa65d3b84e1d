import type { Statement } from 'better-sqlite3';
import type { Micros } from '../../domain/time.js';
import {
  KEPT_DELIVERIES,
  type DeliveryAttempt,
  type HookRef,
  type HookProgress,
  type NewWebhook,
  type OutboxEvent,
  type StoredWebhook,
  type WebhookPatch,
} from '../../domain/webhook.js';
import { expectStrings } from '../kinds/checks.js';
import { hookDueSql, storedEvent } from '../kinds/webhook-events.js';
import type { ActiveHook, WebhookStore } from '../webhook-store.js';
import type { SqliteDatabase } from './connection.js';
import { outboxEventsOn } from './outbox-events.js';

interface HookRow {
  readonly id: string;
  readonly url: string;
  readonly events: string;
  readonly active: number;
  readonly secret: string;
  readonly created: number;
  readonly updated: number;
  readonly failing_since: number | null;
  readonly disabled_reason: string | null;
  readonly delivered_rev: number;
  readonly attempts: number;
  readonly next_attempt: number | null;
}

const HOOK_COLUMNS =
  'id, url, events, active, secret, created, updated, failing_since, disabled_reason, delivered_rev, attempts, next_attempt';

function hookOf(row: HookRow): StoredWebhook {
  return {
    id: row.id,
    url: row.url,
    events: expectStrings(JSON.parse(row.events), 'webhooks.events'),
    active: row.active === 1,
    secret: row.secret,
    created: row.created,
    updated: row.updated,
    failingSince: row.failing_since,
    disabledReason: row.disabled_reason,
    deliveredRev: row.delivered_rev,
    attempts: row.attempts,
    nextAttempt: row.next_attempt,
  };
}

/** Bound on hasActiveHook's remembered answers (one per account that wrote). */
const MAX_KNOWN_ACCOUNTS = 100_000;

const DUE = hookDueSql('@now');

/** What the sender runs for each batch of deliveries, prepared once per store. */
function prepareHookStatements(db: SqliteDatabase) {
  return {
    pending: db.prepare<[Record<string, number>], { account_id: number; id: string }>(
      `SELECT w.account_id, w.id FROM webhooks w WHERE w.active = 1 AND ${DUE}`,
    ),
    activeHooks: db.prepare<[Record<string, number>], { id: string; due: number }>(
      `SELECT w.id, ${DUE} AS due FROM webhooks w WHERE w.account_id = @account AND w.active = 1`,
    ),
    claim: db.prepare<[Record<string, string | number>], HookRow>(
      `UPDATE webhooks SET lease_owner = @owner, lease_until = @until
       WHERE account_id = @account AND id = @id AND active = 1 AND (lease_owner = @owner OR lease_until < @now)
       RETURNING ${HOOK_COLUMNS}`,
    ),
    events: outboxEventsOn(db),
    // A hook turned off meanwhile (by its owner) stays off; null `until` lets the lease go.
    progress: db.prepare<[Record<string, number | string | null>], HookRow>(
      `UPDATE webhooks SET delivered_rev = @rev, attempts = @attempts, next_attempt = @next,
         failing_since = @failing, active = active AND @active,
         disabled_reason = CASE WHEN @active = 1 THEN disabled_reason ELSE @reason END,
         lease_owner = CASE WHEN @until IS NULL THEN NULL ELSE lease_owner END, lease_until = coalesce(@until, 0)
       WHERE account_id = @account AND id = @id AND lease_owner = @owner
       RETURNING ${HOOK_COLUMNS}`,
    ),
    logDelivery: db.prepare<[number, string, number, string, string, number, number | null, string | null, number]>(
      `INSERT INTO webhook_deliveries (account_id, hook_id, at, message_id, type, rev, status, error, duration_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    trimLog: db.prepare<[Record<string, string | number>]>(
      `DELETE FROM webhook_deliveries WHERE account_id = @account AND hook_id = @id AND at < (
         SELECT at FROM webhook_deliveries WHERE account_id = @account AND hook_id = @id
         ORDER BY at DESC LIMIT 1 OFFSET @kept)`,
    ),
    // What every hook of the account is past (all of it when none is active) is not needed any more.
    trimOutbox: db.prepare<[Record<string, number>]>(
      `DELETE FROM webhook_outbox WHERE account_id = @account AND rev <= coalesce(
         (SELECT min(delivered_rev) FROM webhooks WHERE account_id = @account AND active = 1), 9223372036854775807)`,
    ),
    release: db.prepare<[number, string, string]>(
      'UPDATE webhooks SET lease_owner = NULL, lease_until = 0 WHERE account_id = ? AND id = ? AND lease_owner = ?',
    ),
  };
}
type HookStatements = ReturnType<typeof prepareHookStatements>;

/**
 * Webhooks on SQLite, all on the write connection (they are few and small): `run` queues a job
 * there, after the writes before it.
 */
export class SqliteWebhookStore implements WebhookStore {
  constructor(
    private readonly db: SqliteDatabase,
    private readonly run: <T>(job: () => T) => Promise<T>,
  ) {}

  #activeHook: Statement<[number], number> | undefined;
  /**
   * hasActiveHook's answers, until this store next writes a hook: this process is the only one
   * that writes hooks to the file (the admin commands leave them alone), so none goes stale.
   */
  readonly #hooked = new Map<number, boolean>();
  #prepared: HookStatements | undefined;

  /** The sender's statements, prepared once (better-sqlite3 compiles at each prepare), after migration. */
  #statements(): HookStatements {
    this.#prepared ??= prepareHookStatements(this.db);
    return this.#prepared;
  }

  /**
   * Whether the account has an active hook, read at once (not queued): asked after each commit,
   * to tell the sender only of commits whose triggers may have written to the outbox (they write
   * only the changes a hook wants). Prepared on first use, once the store is migrated.
   */
  hasActiveHook(accountId: number): boolean {
    const known = this.#hooked.get(accountId);
    if (known !== undefined) return known;
    this.#activeHook ??= this.db
      .prepare<[number], number>('SELECT 1 FROM webhooks WHERE account_id = ? AND active = 1 LIMIT 1')
      .pluck();
    const hooked = this.#activeHook.get(accountId) !== undefined;
    if (this.#hooked.size >= MAX_KNOWN_ACCOUNTS) this.#hooked.clear();
    this.#hooked.set(accountId, hooked);
    return hooked;
  }

  /** Runs a job that may add, change, turn off or remove a hook of the account: hasActiveHook asks again after it. */
  #writeHooks<T>(accountId: number, job: () => T): Promise<T> {
    return this.run(() => {
      try {
        return job();
      } finally {
        this.#hooked.delete(accountId);
      }
    });
  }

  list(accountId: number): Promise<readonly StoredWebhook[]> {
    return this.run(() =>
      this.db
        .prepare<[number], HookRow>(`SELECT ${HOOK_COLUMNS} FROM webhooks WHERE account_id = ? ORDER BY created, id`)
        .all(accountId)
        .map(hookOf),
    );
  }

  insert(accountId: number, hook: NewWebhook, max: number): Promise<StoredWebhook | 'full'> {
    return this.#writeHooks(accountId, () => {
      const row = this.db
        .prepare<[Record<string, string | number>], HookRow>(
          `INSERT INTO webhooks (account_id, id, url, events, active, secret, created, updated, delivered_rev)
           SELECT @account, @id, @url, @events, @active, @secret, @created, @created, accounts.rev FROM accounts
           WHERE accounts.id = @account AND (SELECT count(*) FROM webhooks WHERE account_id = @account) < @max
           RETURNING ${HOOK_COLUMNS}`,
        )
        .get({
          account: accountId,
          id: hook.id,
          url: hook.url,
          events: JSON.stringify(hook.events),
          active: hook.active ? 1 : 0,
          secret: hook.secret,
          created: hook.created,
          max,
        });
      return row === undefined ? 'full' : hookOf(row);
    });
  }

  update(accountId: number, id: string, patch: WebhookPatch): Promise<StoredWebhook | undefined> {
    const active = patch.active === undefined ? null : patch.active ? 1 : 0;
    return this.#writeHooks(
      accountId,
      () =>
        this.db
          .prepare<[Record<string, string | number | null>], HookRow>(
            `UPDATE webhooks SET url = coalesce(@url, url), events = coalesce(@events, events), updated = @updated,
             active = coalesce(@active, active),
             failing_since = CASE WHEN @active = 1 THEN NULL ELSE failing_since END,
             disabled_reason = CASE WHEN @active = 1 THEN NULL ELSE disabled_reason END,
             attempts = CASE WHEN @active = 1 THEN 0 ELSE attempts END,
             next_attempt = CASE WHEN @active = 1 THEN NULL ELSE next_attempt END
           WHERE account_id = @account AND id = @id RETURNING ${HOOK_COLUMNS}`,
          )
          .all({
            account: accountId,
            id,
            url: patch.url ?? null,
            events: patch.events === undefined ? null : JSON.stringify(patch.events),
            active,
            updated: patch.updated,
          })
          .map(hookOf)[0],
    );
  }

  remove(accountId: number, id: string): Promise<boolean> {
    return this.#writeHooks(accountId, () =>
      this.db.transaction((): boolean => {
        this.db.prepare('DELETE FROM webhook_deliveries WHERE account_id = ? AND hook_id = ?').run(accountId, id);
        return this.db.prepare('DELETE FROM webhooks WHERE account_id = ? AND id = ?').run(accountId, id).changes > 0;
      })(),
    );
  }

  pending(now: Micros): Promise<readonly HookRef[]> {
    return this.run(() =>
      this.#statements()
        .pending.all({ now })
        .map((row) => ({ accountId: row.account_id, id: row.id })),
    );
  }

  activeHooks(now: Micros, accountId: number): Promise<readonly ActiveHook[]> {
    return this.run(() =>
      this.#statements()
        .activeHooks.all({ now, account: accountId })
        .map((row) => ({ id: row.id, due: row.due === 1 })),
    );
  }

  claim(hook: HookRef, owner: string, now: Micros, until: Micros): Promise<StoredWebhook | undefined> {
    return this.run(
      () => this.#statements().claim.all({ account: hook.accountId, id: hook.id, owner, now, until }).map(hookOf)[0],
    );
  }

  events(accountId: number, afterRev: number, limit: number): Promise<readonly OutboxEvent[]> {
    return this.run(() => this.#statements().events(accountId, afterRev, limit));
  }

  progress(
    hook: HookRef,
    owner: string,
    progress: HookProgress,
    attempts: readonly DeliveryAttempt[],
    until: Micros | null,
  ): Promise<StoredWebhook | undefined> {
    const statements = this.#statements();
    // Progress may turn a failing hook off (API.md 4.7).
    return this.#writeHooks(hook.accountId, () =>
      this.db.transaction((): StoredWebhook | undefined => {
        const row = statements.progress.get({
          rev: progress.deliveredRev,
          attempts: progress.attempts,
          next: progress.nextAttempt,
          failing: progress.failingSince,
          active: progress.active ? 1 : 0,
          reason: progress.disabledReason,
          until,
          account: hook.accountId,
          id: hook.id,
          owner,
        });
        if (row === undefined) return undefined;
        // Only the newest can stay in the log.
        for (const attempt of attempts.slice(-KEPT_DELIVERIES)) {
          statements.logDelivery.run(
            hook.accountId,
            hook.id,
            attempt.at,
            attempt.messageId,
            attempt.type,
            attempt.rev,
            attempt.status,
            attempt.error,
            attempt.durationMs,
          );
        }
        if (attempts.length > 0) {
          statements.trimLog.run({ account: hook.accountId, id: hook.id, kept: KEPT_DELIVERIES - 1 });
        }
        statements.trimOutbox.run({ account: hook.accountId });
        return hookOf(row);
      })(),
    );
  }

  release(hook: HookRef, owner: string): Promise<void> {
    return this.run(() => {
      this.#statements().release.run(hook.accountId, hook.id, owner);
    });
  }

  deliveries(hook: HookRef): Promise<readonly DeliveryAttempt[]> {
    return this.run(() =>
      this.db
        .prepare<
          [number, string, number],
          {
            at: number;
            message_id: string;
            type: string;
            rev: number;
            status: number | null;
            error: string | null;
            duration_ms: number;
          }
        >(
          `SELECT at, message_id, type, rev, status, error, duration_ms FROM webhook_deliveries
           WHERE account_id = ? AND hook_id = ? ORDER BY at DESC LIMIT ?`,
        )
        .all(hook.accountId, hook.id, KEPT_DELIVERIES)
        .map((row) => ({
          at: row.at,
          messageId: row.message_id,
          type: storedEvent(row.type),
          rev: row.rev,
          status: row.status,
          error: row.error,
          durationMs: row.duration_ms,
        })),
    );
  }
}
