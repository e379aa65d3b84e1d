import path from 'node:path';
import { openStore, SQLITE_FILE_NAME } from '../../src/store/open.js';
import { count, ms, ratio } from './format.js';
import { analyze, createBenchDatabase, type BenchDatabase } from './postgres.js';
import { progress } from './progress.js';
import {
  measureReminderRead,
  postgresExplainer,
  REMINDERS,
  sqliteExplainer,
  type ReminderReadResults,
} from './reminder-read.js';
import { startTaskService, type ServiceStore } from './servers.js';
import { measureTreeMove, plantTree, type TreeAccounts, type TreeMoveResults } from './tree-move.js';

/** Part T (issue #22): on one engine, the project rename and subtree move, and the due-reminder read. */
export interface TreeEngineResults {
  readonly engine: 'sqlite' | 'postgres';
  readonly move: TreeMoveResults;
  readonly reminders: ReminderReadResults;
}

/** The project rename and subtree move on a fresh store of their own, served by the real `task-service serve`. */
async function moveOn(store: ServiceStore, workDir: string, label: string): Promise<TreeMoveResults> {
  const opened = await openStore(store.engine === 'postgres' ? { ...store, pooled: false } : store);
  let tokens: TreeAccounts;
  try {
    await opened.migrate();
    tokens = await plantTree(opened);
  } finally {
    await opened.close();
  }
  if (store.engine === 'postgres') await analyze(store.url);
  const server = await startTaskService(`task-service-${store.engine}-tree`, store, workDir);
  try {
    return await measureTreeMove(server, tokens, label);
  } finally {
    await server.stop();
  }
}

export async function runTreeSqlite(workDir: string): Promise<TreeEngineResults> {
  progress('T. project rename and subtree move of 10,000 tasks, and due-reminder read (SQLite)');
  const move = await moveOn({ engine: 'sqlite', dataDir: path.join(workDir, 'tree-sqlite') }, workDir, 'SQLite');
  const dataDir = path.join(workDir, 'reminders-sqlite');
  const store = await openStore({ engine: 'sqlite', dataDir });
  try {
    await store.migrate();
    const explain = sqliteExplainer(path.join(dataDir, SQLITE_FILE_NAME));
    const reminders = await measureReminderRead(store, 1, explain, () => Promise.resolve(), 'SQLite');
    return { engine: 'sqlite', move, reminders };
  } finally {
    await store.close();
  }
}

/** The same on PostgreSQL, each in a fresh database dropped afterwards whatever happens. */
export async function runTreePostgres(
  workDir: string,
  onDatabase: (database: BenchDatabase | undefined) => void,
): Promise<TreeEngineResults> {
  progress('T. project rename and subtree move of 10,000 tasks, and due-reminder read (PostgreSQL)');
  const withDatabase = async <T>(work: (url: string) => Promise<T>): Promise<T> => {
    const database = await createBenchDatabase();
    onDatabase(database);
    try {
      return await work(database.url);
    } finally {
      await database.drop();
      onDatabase(undefined);
    }
  };
  const move = await withDatabase((url) =>
    moveOn({ engine: 'postgres', url, dataDir: workDir }, workDir, 'PostgreSQL'),
  );
  const reminders = await withDatabase(async (url) => {
    const store = await openStore({ engine: 'postgres', url, dataDir: workDir, pooled: false });
    try {
      await store.migrate();
      return await measureReminderRead(store, 6, postgresExplainer(url), () => analyze(url), 'PostgreSQL');
    } finally {
      await store.close();
    }
  });
  return { engine: 'postgres', move, reminders };
}

const ENGINE_NAMES = { sqlite: 'SQLite', postgres: 'PostgreSQL' } as const;

/** Part T's section of docs/benchmarks.md: its own table, under its own heading. */
export function treeSection(results: readonly TreeEngineResults[]): string {
  const lines = [
    '## Issue 22: project rename, subtree move and due-reminder read (part T)',
    '',
    '| row | engine | time | meanwhile |',
    '|---|---|---|---|',
  ];
  for (const { engine, move } of results) {
    const rows = [
      [`project rename on ${count(move.subtreeTasks + 1)} tasks: one POST of the project`, move.rename],
      [`subtree move of ${count(move.subtreeTasks)} tasks: one POST of its root to another project`, move.move],
    ] as const;
    for (const [row, times] of rows) {
      lines.push(
        `| ${row} | ${ENGINE_NAMES[engine]} | median ${times.secondsMedian.toFixed(2)} s, slowest ${times.secondsMax.toFixed(2)} s of ${move.moves} | another account (4 writers, one create after the other): ${count(times.otherWrites)} writes, p50 ${ms(times.otherP50Ms)} ms, p99 ${ms(times.otherP99Ms)} ms (nothing else running: p99 ${ms(move.quietP99Ms)} ms) |`,
      );
    }
  }
  for (const { engine, reminders } of results) {
    const [small, big] = reminders.sizes;
    if (small === undefined || big === undefined) continue;
    lines.push(
      `| due-reminder read, ${count(REMINDERS)} reminders, due in the next minute (${small.due} and ${big.due} rows) | ${ENGINE_NAMES[engine]} | ${count(small.tasks)} tasks: p50 ${ms(small.p50Ms)} ms, p99 ${ms(small.p99Ms)} ms; ${count(big.tasks)} tasks: p50 ${ms(big.p50Ms)} ms, p99 ${ms(big.p99Ms)} ms; ratio ${ratio(big.p50Ms / small.p50Ms)}× (p50) | plan: \`${reminders.plan}\`; generated in ${reminders.generateSeconds.toFixed(0)} s |`,
    );
  }
  lines.push(
    '',
    `How: each engine gets stores of its own, filled through \`Store.write\` like the main store. The tree: a root with ${count(100)} children of ${count(99)} children each (${count(10_000)} tasks below it) in one account and one project, whose name is changed by one \`POST /v1/projects\` three times (issue #22's rule for labels: on SQLite the tasks show it ahead in commits of 500), then moved between two projects by one \`POST /v1/tasks\` of the root, three times, all sent to the real \`task-service serve\`; meanwhile another account's 4 writers each create a task, wait for the answer and create the next, until the change is answered (and for 3 s with nothing else running, for the quiet p99). The read: \`Store.dueReminders\` (the firer's read) of what falls due in the next minute, on ${count(REMINDERS)} open tasks reminded at instants spread over 30 days, then again once ${count(900_000)} tasks without reminders are added (over 100 accounts; PostgreSQL: ANALYZE after each fill), 2,000 reads timed at each size after 2,000 untimed ones, in one run; the ratio is the p50 at ${count(1_000_000)} tasks over the p50 at ${count(100_000)}. The plan is the engine's own EXPLAIN of the store's statement. Alone: \`npm run bench -- --only T\`.`,
  );
  return lines.join('\n');
}
