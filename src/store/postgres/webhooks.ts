import type pg from 'pg';
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
import { hookDueSql, outboxKind, outboxRecord, storedEvent } from '../kinds/webhook-events.js';
import type { ActiveHook, WebhookStore } from '../webhook-store.js';
import { guarded } from './errors.js';
import { KIND_TABLES } from './tables.js';
import { EVENTS_SQL } from './webhook-schema.js';
import { microsOrNull, numberFromBigint, type BigintText } from './values.js';

interface HookRow {
  readonly id: string;
  readonly url: string;
  readonly events: string[];
  readonly active: boolean;
  readonly secret: string;
  readonly created: BigintText;
  readonly updated: BigintText;
  readonly failing_since: BigintText | null;
  readonly disabled_reason: string | null;
  readonly delivered_rev: BigintText;
  readonly attempts: number;
  readonly next_attempt: BigintText | null;
}

const HOOK_COLUMNS =
  'id, url, events, active, secret, created, updated, failing_since, disabled_reason, delivered_rev, attempts, next_attempt';

function hookOf(row: HookRow): StoredWebhook {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    active: row.active,
    secret: row.secret,
    created: numberFromBigint(row.created),
    updated: numberFromBigint(row.updated),
    failingSince: microsOrNull(row.failing_since),
    disabledReason: row.disabled_reason,
    deliveredRev: numberFromBigint(row.delivered_rev),
    attempts: row.attempts,
    nextAttempt: microsOrNull(row.next_attempt),
  };
}

interface AttemptRow {
  readonly at: BigintText;
  readonly message_id: string;
  readonly type: string;
  readonly rev: BigintText;
  readonly status: number | null;
  readonly error: string | null;
  readonly duration_ms: number;
}

const DUE = hookDueSql('$1');

/** Webhooks on PostgreSQL: every statement names its account, as everywhere (sharding). */
export class PostgresWebhookStore implements WebhookStore {
  constructor(private readonly pool: pg.Pool) {}

  list(accountId: number): Promise<readonly StoredWebhook[]> {
    return guarded(async () => {
      const result = await this.pool.query<HookRow>(
        `SELECT ${HOOK_COLUMNS} FROM webhooks WHERE account_id = $1 ORDER BY created, id`,
        [accountId],
      );
      return result.rows.map(hookOf);
    });
  }

  insert(accountId: number, hook: NewWebhook, max: number): Promise<StoredWebhook | 'full'> {
    // The account row's lock makes the count and the insert one step against other writers of
    // the account, and the head read under it is where the hook's deliveries start.
    return guarded(async () => {
      const result = await this.pool.query<HookRow>(
        `WITH account AS (SELECT rev FROM accounts WHERE id = $1 FOR NO KEY UPDATE),
              counted AS (SELECT count(*) AS hooks FROM webhooks WHERE account_id = $1)
         INSERT INTO webhooks (account_id, id, url, events, active, secret, created, updated, delivered_rev)
         SELECT $1, $2, $3, $4, $5, $6, $7, $7, account.rev FROM account, counted WHERE counted.hooks < $8
         RETURNING ${HOOK_COLUMNS}`,
        [accountId, hook.id, hook.url, hook.events, hook.active, hook.secret, hook.created, max],
      );
      const [row] = result.rows;
      return row === undefined ? 'full' : hookOf(row);
    });
  }

  update(accountId: number, id: string, patch: WebhookPatch): Promise<StoredWebhook | undefined> {
    return guarded(async () => {
      const result = await this.pool.query<HookRow>(
        `UPDATE webhooks SET url = coalesce($3, url), events = coalesce($4, events), updated = $6,
           active = coalesce($5, active),
           failing_since = CASE WHEN $5 THEN NULL ELSE failing_since END,
           disabled_reason = CASE WHEN $5 THEN NULL ELSE disabled_reason END,
           attempts = CASE WHEN $5 THEN 0 ELSE attempts END,
           next_attempt = CASE WHEN $5 THEN NULL ELSE next_attempt END
         WHERE account_id = $1 AND id = $2 RETURNING ${HOOK_COLUMNS}`,
        [accountId, id, patch.url ?? null, patch.events ?? null, patch.active ?? null, patch.updated],
      );
      const [row] = result.rows;
      return row === undefined ? undefined : hookOf(row);
    });
  }

  remove(accountId: number, id: string): Promise<boolean> {
    return guarded(async () => {
      const result = await this.pool.query(
        `WITH log AS (DELETE FROM webhook_deliveries WHERE account_id = $1 AND hook_id = $2)
         DELETE FROM webhooks WHERE account_id = $1 AND id = $2`,
        [accountId, id],
      );
      return (result.rowCount ?? 0) > 0;
    });
  }

  pending(now: Micros): Promise<readonly HookRef[]> {
    // A sweep over every account (administration), at start and after the change feed was lost.
    return guarded(async () => {
      const result = await this.pool.query<{ account_id: BigintText; id: string }>(
        `SELECT w.account_id, w.id FROM webhooks w WHERE w.active AND ${DUE}`,
        [now],
      );
      return result.rows.map((row) => ({ accountId: numberFromBigint(row.account_id), id: row.id }));
    });
  }

  activeHooks(now: Micros, accountId: number): Promise<readonly ActiveHook[]> {
    return guarded(async () => {
      const result = await this.pool.query<{ id: string; due: boolean }>(
        `SELECT w.id, ${DUE} AS due FROM webhooks w WHERE w.account_id = $2 AND w.active`,
        [now, accountId],
      );
      return result.rows.map((row) => ({ id: row.id, due: row.due }));
    });
  }

  claim(hook: HookRef, owner: string, now: Micros, until: Micros): Promise<StoredWebhook | undefined> {
    return guarded(async () => {
      const result = await this.pool.query<HookRow>(
        `UPDATE webhooks SET lease_owner = $3, lease_until = $5
         WHERE account_id = $1 AND id = $2 AND active AND (lease_owner = $3 OR lease_until < $4)
         RETURNING ${HOOK_COLUMNS}`,
        [hook.accountId, hook.id, owner, now, until],
      );
      const [row] = result.rows;
      return row === undefined ? undefined : hookOf(row);
    });
  }

  events(accountId: number, afterRev: number, limit: number): Promise<readonly OutboxEvent[]> {
    return guarded(async () => {
      const result = await this.pool.query<{
        rev: BigintText;
        kind: string;
        type: string;
        record: Record<string, unknown> | null;
        created: BigintText;
      }>(EVENTS_SQL, [accountId, afterRev, limit]);
      return result.rows.map((row) => {
        const kind = outboxKind(row.kind);
        return {
          rev: numberFromBigint(row.rev),
          type: storedEvent(row.type),
          kind,
          record: KIND_TABLES[kind].codec.fromObject(outboxRecord(row.record, row.rev)),
          created: numberFromBigint(row.created),
        };
      });
    });
  }

  /**
   * One statement per batch of tries: one commit (one WAL flush), where a transaction per
   * delivery made one each, competing with the creates' own commits under load.
   */
  progress(
    hook: HookRef,
    owner: string,
    progress: HookProgress,
    attempts: readonly DeliveryAttempt[],
    until: Micros | null,
  ): Promise<StoredWebhook | undefined> {
    // Only the newest can stay in the log.
    const logged = attempts.slice(-KEPT_DELIVERIES);
    // One statement, so one round trip and no transaction to open: every part of it sees the rows
    // as they were before it. So the log keeps the newest 50 less the tries added, and the outbox
    // goes up to the least delivered_rev of the active hooks with this one's as it is now set.
    // Its commit does not wait for the WAL to reach the disk (`relaxed`): every create's commit
    // does, and under a stream of creates a flush of its own per batch took a share of theirs.
    // A PostgreSQL crash may forget the last of it: those deliveries go again, with their same
    // webhook-id (at least once, API.md 4.7), and every sender's run ends with its connection.
    return guarded(async () => {
      const result = await this.pool.query<HookRow>(
        `WITH moved AS (
           UPDATE webhooks SET delivered_rev = $4, attempts = $5, next_attempt = $6, failing_since = $7,
             active = active AND $8, disabled_reason = CASE WHEN $8 THEN disabled_reason ELSE $9 END,
             lease_owner = CASE WHEN $10::bigint IS NULL THEN NULL ELSE lease_owner END,
             lease_until = coalesce($10, 0)
           WHERE account_id = $1 AND id = $2 AND lease_owner = $3 RETURNING ${HOOK_COLUMNS}
         ), logged AS (
           INSERT INTO webhook_deliveries (account_id, hook_id, at, message_id, type, rev, status, error, duration_ms)
           SELECT $1, $2, tried.* FROM moved,
             unnest($11::bigint[], $12::text[], $13::text[], $14::bigint[], $15::int[], $16::text[], $17::int[])
               AS tried(at, message_id, type, rev, status, error, duration_ms)
         ), trimmed AS (
           DELETE FROM webhook_deliveries d WHERE d.account_id = $1 AND d.hook_id = $2
             AND EXISTS (SELECT 1 FROM moved) AND cardinality($11::bigint[]) > 0
             AND (cardinality($11::bigint[]) >= $18 OR d.at < (
               SELECT at FROM webhook_deliveries WHERE account_id = $1 AND hook_id = $2
               ORDER BY at DESC OFFSET greatest($18 - 1 - cardinality($11::bigint[]), 0) LIMIT 1))
         ), passed AS (
           DELETE FROM webhook_outbox WHERE account_id = $1 AND EXISTS (SELECT 1 FROM moved) AND rev <= coalesce(
             (SELECT min(CASE WHEN w.id = $2 THEN $4::bigint ELSE w.delivered_rev END) FROM webhooks w
              WHERE w.account_id = $1 AND w.active AND (w.id <> $2 OR $8)),
             9223372036854775807)
         ), relaxed AS (
           SELECT set_config('synchronous_commit', 'off', true)
         )
         SELECT moved.* FROM moved, relaxed`,
        [
          hook.accountId,
          hook.id,
          owner,
          progress.deliveredRev,
          progress.attempts,
          progress.nextAttempt,
          progress.failingSince,
          progress.active,
          progress.disabledReason,
          until,
          logged.map((attempt) => attempt.at),
          logged.map((attempt) => attempt.messageId),
          logged.map((attempt) => attempt.type),
          logged.map((attempt) => attempt.rev),
          logged.map((attempt) => attempt.status),
          logged.map((attempt) => attempt.error),
          logged.map((attempt) => attempt.durationMs),
          KEPT_DELIVERIES,
        ],
      );
      const [row] = result.rows;
      return row === undefined ? undefined : hookOf(row);
    });
  }

  release(hook: HookRef, owner: string): Promise<void> {
    return guarded(async () => {
      await this.pool.query(
        'UPDATE webhooks SET lease_owner = NULL, lease_until = 0 WHERE account_id = $1 AND id = $2 AND lease_owner = $3',
        [hook.accountId, hook.id, owner],
      );
    });
  }

  deliveries(hook: HookRef): Promise<readonly DeliveryAttempt[]> {
    return guarded(async () => {
      const result = await this.pool.query<AttemptRow>(
        `SELECT at, message_id, type, rev, status, error, duration_ms FROM webhook_deliveries
         WHERE account_id = $1 AND hook_id = $2 ORDER BY at DESC LIMIT $3`,
        [hook.accountId, hook.id, KEPT_DELIVERIES],
      );
      return result.rows.map((row) => ({
        at: numberFromBigint(row.at),
        messageId: row.message_id,
        type: storedEvent(row.type),
        rev: numberFromBigint(row.rev),
        status: row.status,
        error: row.error,
        durationMs: row.duration_ms,
      }));
    });
  }
}
