import Database from 'better-sqlite3';
import pg from 'pg';
import { nowMicros, MICROS_PER_DAY, type Micros } from '../../src/domain/time.js';
import { AccountService } from '../../src/service/accounts.js';
import type { Store } from '../../src/store/store.js';
import { AccountDataset } from './dataset.js';
import { progress } from './progress.js';
import { Random } from './random.js';

/** Tasks with a reminder, whatever the store's size: the due-reminder read's own rows. */
export const REMINDERS = 100_000;
/** The two sizes of one run: the read must cost the same at both. */
export const REMINDER_STORE_SIZES = [100_000, 1_000_000] as const;
/** Accounts the tasks are spread over: the read is one for the whole store, across accounts. */
const ACCOUNTS = 100;
const TASKS_PER_TRANSACTION = 5000;
/** Reads timed at each size, after as many untimed ones. */
const READS = 2000;
/** The reminders fall due over this many days after FIRST_DUE: about 2.3 a minute. */
const DUE_DAYS = 30;
/** 2027-01-01T00:00:00Z; the read asks for what falls due in the minute after it. */
const FIRST_DUE: Micros = Date.UTC(2027, 0, 1) * 1000;
const MINUTE: Micros = 60_000_000;
/** What the reminder firer asks for at most in one read. */
const READ_LIMIT = 1000;

export interface ReminderReadAt {
  readonly tasks: number;
  readonly reminders: number;
  /** Rows the read answers: the reminders due in the minute asked for. */
  readonly due: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

export interface ReminderReadResults {
  readonly sizes: readonly ReminderReadAt[];
  /** The read's plan, as the engine explains it (SQLite: EXPLAIN QUERY PLAN; PostgreSQL: EXPLAIN). */
  readonly plan: string;
  readonly generateSeconds: number;
}

/**
 * The store's due-reminder statement, as `dueReminders` sends it (store/sqlite/due-reminders.ts,
 * store/postgres/store.ts), for EXPLAIN: the timed reads go through the store itself.
 */
const EXPLAINED = {
  sqlite: `EXPLAIN QUERY PLAN SELECT account_id, id, reminder_due FROM tasks INDEXED BY tasks_reminder_due
     WHERE reminder_due IS NOT NULL AND reminder_due <= ? ORDER BY reminder_due LIMIT ?`,
  postgres: `EXPLAIN SELECT account_id, id, reminder_due FROM tasks
     WHERE reminder_due IS NOT NULL AND reminder_due <= $1 ORDER BY reminder_due LIMIT $2`,
} as const;

export type Explainer = () => Promise<string>;

export function sqliteExplainer(file: string): Explainer {
  return () => {
    const db = new Database(file, { readonly: true });
    try {
      const rows = db
        .prepare<[number, number], { detail: string }>(EXPLAINED.sqlite)
        .all(FIRST_DUE + MINUTE, READ_LIMIT);
      return Promise.resolve(rows.map((row) => row.detail).join('; '));
    } finally {
      db.close();
    }
  };
}

export function postgresExplainer(url: string): Explainer {
  return async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const result = await client.query<{ 'QUERY PLAN': string }>(EXPLAINED.postgres, [FIRST_DUE + MINUTE, READ_LIMIT]);
      return result.rows.map((row) => row['QUERY PLAN'].trim()).join('; ');
    } finally {
      await client.end();
    }
  };
}

function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] ?? Number.NaN;
}

/** Times READS due-reminder reads of the minute after FIRST_DUE, through the store. */
async function timeReads(store: Store, tasks: number, reminders: number): Promise<ReminderReadAt> {
  const until = FIRST_DUE + MINUTE;
  for (let i = 0; i < READS; i += 1) await store.dueReminders(until, READ_LIMIT);
  const latencies: number[] = [];
  let due = 0;
  for (let i = 0; i < READS; i += 1) {
    const started = performance.now();
    due = (await store.dueReminders(until, READ_LIMIT)).length;
    latencies.push(performance.now() - started);
  }
  latencies.sort((a, b) => a - b);
  return { tasks, reminders, due, p50Ms: percentile(latencies, 0.5), p99Ms: percentile(latencies, 0.99) };
}

/**
 * Fills an empty, migrated store to each size of REMINDER_STORE_SIZES in turn, through
 * `Store.write` in transactions of many puts (`concurrency` accounts at once), and times the
 * due-reminder read at each: the first REMINDERS tasks have one reminder each, the rest none.
 * `settle` runs after each fill (PostgreSQL: ANALYZE, as autovacuum would on a grown database).
 */
export async function measureReminderRead(
  store: Store,
  concurrency: number,
  explain: Explainer,
  settle: () => Promise<void>,
  label: string,
): Promise<ReminderReadResults> {
  const accounts = new AccountService(store, nowMicros);
  const ids: number[] = [];
  for (let index = 0; index < ACCOUNTS; index += 1) ids.push((await accounts.addUser(`r${index}`, null, 'UTC')).id);
  const datasets = ids.map((_id, index) => new AccountDataset(index));
  for (const [index, accountId] of ids.entries()) {
    const dataset = datasets[index];
    if (dataset === undefined) throw new Error(`no account ${index}`);
    await store.write(accountId, async (tx) => {
      for (const project of dataset.projects) await tx.put('project', project);
      for (const context of dataset.contexts) await tx.put('context', context);
    });
  }
  const random = new Random(0x7e3142);
  const started = performance.now();
  let generateMs = 0;
  let written = 0;
  const sizes: ReminderReadAt[] = [];

  for (const size of REMINDER_STORE_SIZES) {
    const fillStarted = performance.now();
    const perAccount = (size - written) / ACCOUNTS;
    let next = 0;
    const lane = async (): Promise<void> => {
      while (next < ACCOUNTS) {
        const index = next;
        next += 1;
        const accountId = ids[index];
        const dataset = datasets[index];
        if (accountId === undefined || dataset === undefined) throw new Error(`no account ${index}`);
        for (let left = perAccount; left > 0; left -= TASKS_PER_TRANSACTION) {
          const count = Math.min(left, TASKS_PER_TRANSACTION);
          await store.write(accountId, async (tx) => {
            for (let i = 0; i < count; i += 1) {
              const task = dataset.task();
              if (written >= REMINDERS) await tx.put('task', task);
              else {
                // Open, and reminded at an instant: its next reminder is that instant.
                const at = FIRST_DUE + random.below(DUE_DAYS * MICROS_PER_DAY);
                const reminder = { id: `${task.id}-r`, at };
                await tx.put('task', {
                  ...task,
                  completed: null,
                  trashed: null,
                  reminders: [reminder],
                  reminderDue: at,
                });
              }
              written += 1;
            }
          });
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, lane));
    await settle();
    generateMs += performance.now() - fillStarted;
    progress(
      `  ${label}: ${written.toLocaleString('en')} tasks in ${((performance.now() - started) / 1000).toFixed(0)} s`,
    );
    sizes.push(await timeReads(store, written, Math.min(written, REMINDERS)));
  }
  return { sizes, plan: await explain(), generateSeconds: generateMs / 1000 };
}
