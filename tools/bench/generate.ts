import { AccountService } from '../../src/service/accounts.js';
import type { Store } from '../../src/store/store.js';
import { AccountDataset } from './dataset.js';
import { GENERATOR_FORMAT, ROLES, type Credential, type Manifest, type Role, type StoreShape } from './manifest.js';
import { progress } from './progress.js';
import { nowMicros } from '../../src/domain/time.js';

/** Puts per `Store.write`: one transaction per this many tasks keeps commits rare and memory small. */
const TASKS_PER_TRANSACTION = 5000;

/** Time zones the accounts cycle through: rendering dates in a zone with DST is the common case. */
const ZONES = ['Europe/Berlin', 'America/New_York', 'Asia/Shanghai', 'UTC'] as const;

export interface GenerateOptions {
  /** Accounts written at the same time: PostgreSQL writes accounts in parallel, SQLite one at a time. */
  readonly concurrency: number;
  readonly label: string;
}

function username(index: number): string {
  return index === 0 ? 'big' : `user${String(index).padStart(4, '0')}`;
}

/** The generated account a role is played by: account 0 is the big one, the others follow in ROLES order. */
export function accountIndexOf(role: Role): number {
  return ROLES.indexOf(role);
}

/**
 * Fills an empty, migrated store through the Store interface, as the service would write it:
 * each account's projects and contexts, then its tasks in transactions of many puts.
 */
export async function generate(store: Store, shape: StoreShape, options: GenerateOptions): Promise<Manifest> {
  const started = Date.now();
  const accounts = new AccountService(store, nowMicros);
  const ids: number[] = [];
  for (let index = 0; index < shape.accounts; index += 1) {
    const zone = ZONES[index % ZONES.length] ?? 'UTC';
    ids.push((await accounts.addUser(username(index), null, zone)).id);
  }
  const credentials = new Map<Role, Credential>();
  for (const role of ROLES) {
    const name = username(accountIndexOf(role));
    credentials.set(role, { username: name, token: await accounts.createToken(name, 'write', 'bench', null) });
  }

  const taskCount = shape.bigAccountTasks + (shape.accounts - 1) * shape.tasksPerAccount;
  let written = 0;
  let reported = 0;
  const report = (): void => {
    if (written - reported < taskCount / 20 && written !== taskCount) return;
    reported = written;
    const seconds = (Date.now() - started) / 1000;
    progress(
      `${options.label}: ${written.toLocaleString('en')} / ${taskCount.toLocaleString('en')} tasks (${Math.round(written / seconds).toLocaleString('en')}/s)`,
    );
  };

  const fillAccount = async (index: number): Promise<void> => {
    const accountId = ids[index];
    if (accountId === undefined) throw new Error(`no account ${index}`);
    const dataset = new AccountDataset(index);
    await store.write(accountId, async (tx) => {
      for (const project of dataset.projects) await tx.put('project', project);
      for (const context of dataset.contexts) await tx.put('context', context);
    });
    let left = index === 0 ? shape.bigAccountTasks : shape.tasksPerAccount;
    while (left > 0) {
      const count = Math.min(left, TASKS_PER_TRANSACTION);
      await store.write(accountId, async (tx) => {
        for (let i = 0; i < count; i += 1) await tx.put('task', dataset.task());
      });
      left -= count;
      written += count;
      report();
    }
  };

  // The big account first and alone in its lane; the others share the remaining lanes.
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < shape.accounts) {
      const index = next;
      next += 1;
      await fillAccount(index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, lane));

  const credential = (role: Role): Credential => {
    const found = credentials.get(role);
    if (found === undefined) throw new Error(`no credential for ${role}`);
    return found;
  };
  return {
    format: GENERATOR_FORMAT,
    shape,
    taskCount,
    accounts: {
      big: credential('big'),
      list: credential('list'),
      create: credential('create'),
      array: credential('array'),
      sync: credential('sync'),
    },
    generatedAt: new Date().toISOString(),
    generateSeconds: (Date.now() - started) / 1000,
  };
}

/** A new token of every generated account, in account order: for loads spread over all of them. */
export async function tokensOfEveryAccount(store: Store, shape: StoreShape): Promise<string[]> {
  const accounts = new AccountService(store, nowMicros);
  const tokens: string[] = [];
  for (let index = 0; index < shape.accounts; index += 1) {
    tokens.push(await accounts.createToken(username(index), 'write', 'bench', null));
  }
  return tokens;
}
