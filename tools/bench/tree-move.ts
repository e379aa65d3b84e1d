import { NEW_TASK, type Label, type TaskDraft } from '../../src/domain/task.js';
import { nowMicros } from '../../src/domain/time.js';
import { AccountService } from '../../src/service/accounts.js';
import type { Store } from '../../src/store/store.js';
import { sendOk } from './http-client.js';
import { count } from './format.js';
import { progress } from './progress.js';
import type { Server } from './servers.js';

/** The moved subtree: a root with 100 children of 99 children each, 10,000 tasks below it. */
const CHILDREN = 100;
const GRANDCHILDREN = 99;
export const SUBTREE_TASKS = CHILDREN * (GRANDCHILDREN + 1);

/** Moves measured, back and forth between two projects; the row shows their median. */
const MOVES = 3;
/** Closed loops of the other account, each one write after the other, while a move runs. */
const OTHER_WRITERS = 4;
/** How long the other account writes with no move running, for its p99 undisturbed. */
const QUIET_SECONDS = 3;

export interface TreeAccounts {
  readonly mover: string;
  readonly other: string;
}

/** How long one kind of change took, and the other account's writes answered while it ran. */
export interface ChangeTimes {
  readonly secondsMedian: number;
  readonly secondsMax: number;
  readonly otherWrites: number;
  readonly otherP50Ms: number;
  readonly otherP99Ms: number;
}

export interface TreeMoveResults {
  readonly subtreeTasks: number;
  /** Changes of each kind measured. */
  readonly moves: number;
  /** The subtree moved by one POST of its root. */
  readonly move: ChangeTimes;
  /** The project of the root and its subtree renamed by one POST of the project. */
  readonly rename: ChangeTimes;
  /** The other account's writes with no change running. */
  readonly quietWrites: number;
  readonly quietP99Ms: number;
}

/**
 * Two accounts in an empty, migrated store: one holding the subtree (in project "Home"), the other
 * empty. Planted through `Store.write` in one transaction; answers their write tokens.
 */
export async function plantTree(store: Store): Promise<TreeAccounts> {
  const accounts = new AccountService(store, nowMicros);
  const mover = await accounts.addUser('tree', null, 'UTC');
  await accounts.addUser('other', null, 'UTC');
  await store.write(mover.id, async (tx) => {
    const project = await tx.put('project', {
      id: 'home',
      name: 'Home',
      notes: '',
      archived: null,
      color: null,
      deleted: null,
    });
    const home: Label = { id: project.id, name: project.name };
    const task = (id: string, parentId: string | null): TaskDraft => ({
      ...NEW_TASK,
      id,
      title: `task ${id}`,
      project: home,
      parentId,
    });
    await tx.put('task', task('root', null));
    for (let child = 0; child < CHILDREN; child += 1) {
      await tx.put('task', task(`c${child}`, 'root'));
      for (let leaf = 0; leaf < GRANDCHILDREN; leaf += 1) await tx.put('task', task(`c${child}-${leaf}`, `c${child}`));
    }
  });
  return {
    mover: await accounts.createToken('tree', 'write', 'bench', null),
    other: await accounts.createToken('other', 'write', 'bench', null),
  };
}

function post(
  token: string,
  body: unknown,
  path = '/v1/tasks',
): { method: string; path: string; headers: Record<string, string>; body: string } {
  return {
    method: 'POST',
    path,
    headers: { authorization: `OAuth ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  };
}

function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] ?? Number.NaN;
}

/** The other account's writers, one write after the other each, until `until()` says stop. */
async function otherWrites(server: Server, token: string, until: () => boolean): Promise<number[]> {
  const latencies: number[] = [];
  const writer = async (): Promise<void> => {
    while (!until()) {
      const started = performance.now();
      await sendOk(server.port, post(token, { title: 'meanwhile' }));
      latencies.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: OTHER_WRITERS }, writer));
  return latencies.sort((a, b) => a - b);
}

/**
 * `changes` sent one after the other (each one POST, described for the progress line), while the
 * other account writes.
 */
async function timeChanges(
  server: Server,
  tokens: TreeAccounts,
  changes: readonly { readonly said: string; readonly path: string; readonly body: unknown }[],
): Promise<ChangeTimes> {
  const seconds: number[] = [];
  const during: number[] = [];
  for (const change of changes) {
    let done = false;
    const started = performance.now();
    const changing = sendOk(server.port, post(tokens.mover, change.body, change.path)).finally(() => {
      done = true;
    });
    const [latencies] = await Promise.all([otherWrites(server, tokens.other, () => done), changing]);
    seconds.push((performance.now() - started) / 1000);
    during.push(...latencies);
    progress(`  ${change.said} in ${seconds.at(-1)?.toFixed(2)} s, ${latencies.length} other writes meanwhile`);
  }
  seconds.sort((a, b) => a - b);
  during.sort((a, b) => a - b);
  return {
    secondsMedian: percentile(seconds, 0.5),
    secondsMax: seconds.at(-1) ?? Number.NaN,
    otherWrites: during.length,
    otherP50Ms: percentile(during, 0.5),
    otherP99Ms: percentile(during, 0.99),
  };
}

/**
 * The project of the whole tree renamed by one POST of the project, MOVES times back and forth;
 * then the subtree moved to another project by one POST of its root, MOVES times back and forth;
 * both while the other account writes. Before them, the other account's writes alone for
 * QUIET_SECONDS.
 */
export async function measureTreeMove(server: Server, tokens: TreeAccounts, label: string): Promise<TreeMoveResults> {
  const quietEnd = performance.now() + QUIET_SECONDS * 1000;
  const quiet = await otherWrites(server, tokens.other, () => performance.now() > quietEnd);
  const tasks = count(SUBTREE_TASKS + 1);
  const renames = Array.from({ length: MOVES }, (_, index) => {
    const name = index % 2 === 0 ? 'House' : 'Home';
    return {
      said: `${label}: renamed the project of ${tasks} tasks to ${name}`,
      path: '/v1/projects',
      body: { id: 'home', name },
    };
  });
  const rename = await timeChanges(server, tokens, renames);
  const moves = Array.from({ length: MOVES }, (_, index) => {
    const project = index % 2 === 0 ? 'Garden' : 'Home';
    return {
      said: `${label}: moved ${count(SUBTREE_TASKS)} tasks to ${project}`,
      path: '/v1/tasks',
      body: { id: 'root', project },
    };
  });
  const move = await timeChanges(server, tokens, moves);
  return {
    subtreeTasks: SUBTREE_TASKS,
    moves: MOVES,
    move,
    rename,
    quietWrites: quiet.length,
    quietP99Ms: percentile(quiet, 0.99),
  };
}
