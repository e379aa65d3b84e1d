/**
 * The crash-safety scenario: a real `serve --http` process on the embedded store (SQLite,
 * synchronous=FULL), concurrent writers and sync clients over real sockets, SIGKILL at a random
 * moment, the file checked while nothing runs, a restart, and every answered write looked for.
 */
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import Database from 'better-sqlite3';
import { z } from 'zod';
import { decodeCursor, encodeCursor } from '../../../src/http/wire/cursor.js';
import { SQLITE_FILE_NAME } from '../../../src/store/open.js';
import { newAccount } from '../../e2e/support/accounts.js';
import { oauth, type HttpResponse } from '../../e2e/support/http.js';
import { KeepAliveClient } from '../../e2e/support/keep-alive.js';
import { makeTempDir, startServe, type ServeProcess } from '../../e2e/support/processes.js';
import { taskArraySchema, taskListSchema, taskSchema, type WireTask } from '../../e2e/support/wire.js';
import { Random } from './random.js';

export interface CrashOptions {
  readonly kills: number;
  readonly seed: number;
  readonly accounts?: number;
  readonly writersPerAccount?: number;
  /** The longest a cycle writes before the kill (ms); each cycle picks a moment up to this. */
  readonly maxRunMs?: number;
  /** Past this many tasks an account mostly updates and deletes, so long soaks stay quick. */
  readonly taskCap?: number;
}

export interface CrashFigures {
  kills: number;
  /** POSTs answered 200 before a kill. */
  answeredRequests: number;
  /** Task writes in those answers (an array POST counts each entry). */
  answeredWrites: number;
  /** Answered writes found after the restart that followed them, as answered or superseded. */
  writesChecked: number;
  /** Stored tasks compared field by field with the last answer for their id, over all restarts. */
  recordsCompared: number;
  /** Requests the kill cut off, whose outcome the client cannot know. */
  unknownOutcomes: number;
  /**
   * Requests the server refused with E503 (the load shedder, as designed on a busy machine):
   * nothing of them is stored, which the check after the restart holds it to.
   */
  refusals: number;
  /** Of those task writes, the ones found committed after the restart (the rest never were). */
  unknownFoundCommitted: number;
  /** Array POSTs cut by a kill, checked to have committed whole or not at all. */
  cutArraysChecked: number;
  /** Cursors issued before a kill and continued after the restart. */
  cursorsContinued: number;
  /** Entries those continuations returned, each checked against the full state. */
  cursorEntriesChecked: number;
  integrityChecks: number;
  /** Tasks (deleted ones included) in the store at the end. */
  tasksAtEnd: number;
  anomalies: string[];
}

/** A deletion time of now: one far in the past would be purged (retention) at the next start. */
function deletedNow(): string {
  return new Date().toISOString().replace(/\.\d+Z$/, 'Z');
}

/** One client's knowledge of one account: what was answered, what is unknown, its sync replica. */
class AccountState {
  /** The answered write with the highest rev, per task id. */
  readonly answered = new Map<string, WireTask>();
  /** Titles of writes whose answer never came, per id: each may or may not have committed. */
  readonly pending = new Map<string, Set<string>>();
  /** Every rev answered so far: a rev is never given twice. */
  readonly revs = new Map<number, string>();
  /** The client's copy of the account, kept by incremental sync only. */
  readonly replica = new Map<string, WireTask>();
  /** Where the sync client stands: the last cursor it was given. */
  cursor: string;
  /** Cursors given in earlier cycles, any of which must still continue exactly. */
  readonly oldCursors: string[] = [];
  /** The new ids of array POSTs the kill cut off: all of them committed, or none. */
  cutArrays: string[][] = [];
  /** Task writes answered in the cycle now running, checked after the next restart. */
  answeredThisCycle = 0;

  constructor(
    readonly name: string,
    readonly token: string,
    /** A cursor before every change of the account, in the store's epoch. */
    readonly start: string,
  ) {
    this.cursor = start;
  }

  ids(): string[] {
    return [...new Set([...this.answered.keys(), ...this.pending.keys()])];
  }
}

interface Cycle {
  readonly number: number;
  readonly random: Random;
  stopped: boolean;
  serial: number;
}

function isTransportFailure(error: unknown): boolean {
  return error instanceof Error;
}

/**
 * Whether an answer is the designed refusal of an overloaded server: 503, the contract's E503
 * body and a Retry-After. Anything else that is not a 200 is a fault.
 */
function isDesignedRefusal(response: HttpResponse): boolean {
  if (response.status !== 503 || response.headers['retry-after'] === undefined) return false;
  const parsed = refusalSchema.safeParse(parseJson(response.text));
  return parsed.success;
}

const refusalSchema = z.object({ retcode: z.literal('E503'), retmsg: z.string() });

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A moment's wait after a refusal, as its Retry-After asks of a client (kept short: the kill comes soon). */
function backOff(random: Random): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, random.int(20, 100)));
}

/**
 * A read the verification needs: refused reads (E503, the server still warming up on a busy
 * machine) are asked again, up to a limit, as a client would.
 */
async function readWithRetry(client: KeepAliveClient, path: string, token: string): Promise<HttpResponse> {
  for (let attempt = 1; ; attempt += 1) {
    const response = await client.request({ path, headers: oauth(token) });
    if (!isDesignedRefusal(response) || attempt === 50) return response;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The list of `/v1/tasks` answers, or a description of what was wrong with the answer. */
function readList(response: HttpResponse): { entries: WireTask[]; cursor: string; has_more: boolean } | string {
  if (response.status !== 200) return `list answered ${response.status}: ${response.text.slice(0, 300)}`;
  const parsed = taskListSchema.safeParse(JSON.parse(response.text));
  return parsed.success ? parsed.data : `list answer of unexpected shape: ${response.text.slice(0, 300)}`;
}

function positionOf(cursor: string): number {
  const position = decodeCursor(cursor);
  if (position === undefined) throw new Error(`the service gave a cursor it cannot read back: ${cursor}`);
  return position.rev;
}

/** A cursor before every change, in the epoch of the store in `dataDir`. */
function startCursor(dataDir: string): string {
  const db = new Database(path.join(dataDir, SQLITE_FILE_NAME), { readonly: true, fileMustExist: true });
  try {
    const epoch = db.prepare<[], string>('SELECT epoch FROM store_identity').pluck().get();
    if (epoch === undefined) throw new Error('the store has no epoch');
    return encodeCursor({ epoch, rev: 0, purgedRev: 0 });
  } finally {
    db.close();
  }
}

/**
 * The body of one task write: a new id, or the id of a task whose write was answered (so a new
 * id is written by one request only), with a title that names this attempt.
 */
function taskWrite(
  account: AccountState,
  cycle: Cycle,
  random: Random,
  wantNew: boolean,
): { body: Record<string, unknown>; fresh: boolean } {
  cycle.serial += 1;
  const known = [...account.answered.keys()];
  const fresh = wantNew || known.length === 0;
  const id = fresh ? `k${cycle.number}-${cycle.serial}-${random.int(0, 1e6)}` : random.pick(known);
  const title = `${account.name} c${cycle.number} w${cycle.serial} ${'ü'.repeat(random.int(0, 3))}`;
  const body: Record<string, unknown> = { id, title };
  const kind = random.int(0, 9);
  if (kind <= 1 && !fresh) body['deleted'] = deletedNow();
  else if (kind === 2 && !fresh) body['completed'] = '2026-01-02 10:00:00 +0000';
  else if (kind === 3) Object.assign(body, { start_at: `2026-12-${String(random.int(10, 28))} 09:00:00 +0000` });
  if (random.chance(0.5)) body['notes'] = 'n'.repeat(random.int(0, 2000));
  if (random.chance(0.3)) body['tags'] = [`t${random.int(0, 5)}`, `t${random.int(0, 5)}`];
  if (random.chance(0.3)) body['priority'] = random.int(0, 3);
  if (random.chance(0.1)) body['project'] = random.pick(['Home', 'Work']);
  return { body, fresh };
}

function titleOf(body: Record<string, unknown>): { id: string; title: string } {
  const { id, title } = body;
  if (typeof id !== 'string' || typeof title !== 'string') throw new Error('a write without id or title');
  return { id, title };
}

/** Takes an answered entry into the account's knowledge; a rev seen before is an anomaly. */
function learnAnswer(account: AccountState, entry: WireTask, anomalies: string[]): void {
  const earlier = account.revs.get(entry.rev);
  if (earlier !== undefined)
    anomalies.push(`${account.name}: rev ${entry.rev} answered twice (${earlier}, ${entry.id})`);
  account.revs.set(entry.rev, entry.id);
  const current = account.answered.get(entry.id);
  if (current === undefined || current.rev < entry.rev) account.answered.set(entry.id, entry);
}

async function writer(
  account: AccountState,
  client: KeepAliveClient,
  cycle: Cycle,
  figures: CrashFigures,
  taskCap: number,
): Promise<void> {
  const random = cycle.random;
  while (!cycle.stopped) {
    const roomForNew = account.answered.size < taskCap;
    const asArray = random.chance(0.25);
    const bodies: Record<string, unknown>[] = [];
    const freshIds: string[] = [];
    const count = asArray ? random.int(15, 25) : 1;
    const used = new Set<string>();
    while (bodies.length < count) {
      const { body, fresh } = taskWrite(account, cycle, random, roomForNew && random.chance(asArray ? 0.6 : 0.4));
      const { id } = titleOf(body);
      if (used.has(id)) continue;
      used.add(id);
      bodies.push(body);
      if (fresh) freshIds.push(id);
    }
    for (const body of bodies) {
      const { id, title } = titleOf(body);
      const titles = account.pending.get(id) ?? new Set<string>();
      titles.add(title);
      account.pending.set(id, titles);
    }
    let response: HttpResponse;
    try {
      response = await client.request({
        path: '/v1/tasks',
        headers: oauth(account.token),
        body: asArray ? bodies : bodies[0],
        timeoutMs: 15_000,
      });
    } catch (error) {
      if (!isTransportFailure(error)) throw error;
      // Cut off by the kill: these writes may or may not have committed; they stay pending.
      figures.unknownOutcomes += 1;
      if (asArray && freshIds.length >= 2) account.cutArrays.push(freshIds);
      return;
    }
    // Answered: the outcome is known, so none of these attempts is pending any more.
    for (const body of bodies) {
      const { id, title } = titleOf(body);
      account.pending.get(id)?.delete(title);
      if (account.pending.get(id)?.size === 0) account.pending.delete(id);
    }
    if (isDesignedRefusal(response)) {
      // Refused before any work: none of these writes is stored (the next check holds it to that).
      figures.refusals += 1;
      await backOff(random);
      continue;
    }
    if (response.status !== 200) {
      figures.anomalies.push(`${account.name}: write answered ${response.status}: ${response.text.slice(0, 300)}`);
      continue;
    }
    const json: unknown = JSON.parse(response.text);
    const entries = asArray ? taskArraySchema.parse(json).entries : [taskSchema.parse(json)];
    figures.answeredRequests += 1;
    figures.answeredWrites += entries.length;
    account.answeredThisCycle += entries.length;
    for (const entry of entries) learnAnswer(account, entry, figures.anomalies);
  }
}

/** A sync client: lists from its cursor again and again, keeping its replica. */
async function syncer(
  account: AccountState,
  client: KeepAliveClient,
  cycle: Cycle,
  figures: CrashFigures,
): Promise<void> {
  while (!cycle.stopped) {
    const from = account.cursor;
    let response: HttpResponse;
    try {
      response = await client.request({
        path: `/v1/tasks?cursor=${encodeURIComponent(from)}&limit=${cycle.random.int(20, 400)}`,
        headers: oauth(account.token),
        timeoutMs: 15_000,
      });
    } catch (error) {
      if (!isTransportFailure(error)) throw error;
      return;
    }
    if (isDesignedRefusal(response)) {
      figures.refusals += 1;
      await backOff(cycle.random);
      continue;
    }
    const list = readList(response);
    if (typeof list === 'string') {
      figures.anomalies.push(`${account.name}: sync ${list}`);
      return;
    }
    const after = positionOf(from);
    let previous = after;
    for (const entry of list.entries) {
      if (entry.rev <= previous)
        figures.anomalies.push(`${account.name}: sync from ${after} gave rev ${entry.rev} after ${previous}`);
      previous = entry.rev;
      account.replica.set(entry.id, entry);
    }
    account.cursor = list.cursor;
    await new Promise((resolve) => setTimeout(resolve, cycle.random.int(0, 20)));
  }
}

/** Every task of the account, deleted ones included, in one answer. */
async function fullState(client: KeepAliveClient, account: AccountState): Promise<WireTask[]> {
  const response = await readWithRetry(client, `/v1/tasks?cursor=${encodeURIComponent(account.start)}`, account.token);
  const list = readList(response);
  if (typeof list === 'string') throw new Error(`${account.name}: full listing ${list}`);
  return list.entries;
}

/** Lists from `cursor` page by page (random page sizes) until `has_more` is false. */
async function continueFrom(
  client: KeepAliveClient,
  account: AccountState,
  cursor: string,
  random: Random,
): Promise<{ entries: WireTask[]; cursor: string }> {
  const entries: WireTask[] = [];
  let at = cursor;
  for (;;) {
    const response = await readWithRetry(
      client,
      `/v1/tasks?cursor=${encodeURIComponent(at)}&limit=${random.int(1, 300)}`,
      account.token,
    );
    const list = readList(response);
    if (typeof list === 'string') throw new Error(`${account.name}: continuing ${cursor}: ${list}`);
    entries.push(...list.entries);
    at = list.cursor;
    if (!list.has_more) return { entries, cursor: at };
  }
}

function describeTask(task: WireTask | undefined): string {
  return task === undefined ? 'nothing' : `rev ${task.rev} "${task.title}"${task.deleted === null ? '' : ' (deleted)'}`;
}

/** After a restart: every answered write is there, unknown ones are all-or-nothing, cursors continue. */
async function verifyAfterRestart(
  server: ServeProcess,
  account: AccountState,
  random: Random,
  figures: CrashFigures,
): Promise<void> {
  const client = new KeepAliveClient(server.origin);
  const anomalies = figures.anomalies;
  try {
    const full = await fullState(client, account);
    const stored = new Map<string, WireTask>();
    let previous = 0;
    for (const task of full) {
      if (task.rev <= previous) anomalies.push(`${account.name}: full listing not in ascending rev at ${task.rev}`);
      if (stored.has(task.id)) anomalies.push(`${account.name}: task ${task.id} listed twice`);
      previous = task.rev;
      stored.set(task.id, task);
    }

    // Every id the client knows or the store has: the answered content, or a pending write's.
    for (const id of new Set([...account.answered.keys(), ...account.pending.keys(), ...stored.keys()])) {
      const answer = account.answered.get(id);
      const found = stored.get(id);
      const pending = account.pending.get(id) ?? new Set<string>();
      const fromPending = found !== undefined && pending.has(found.title);
      if (answer !== undefined) {
        figures.recordsCompared += 1;
        if (found === undefined)
          anomalies.push(`${account.name}: answered task ${id} (${describeTask(answer)}) is gone`);
        else if (found.rev === answer.rev) {
          if (!isDeepStrictEqual(found, answer)) {
            anomalies.push(
              `${account.name}: task ${id} differs from its answer: ${JSON.stringify(found)} vs ${JSON.stringify(answer)}`,
            );
          }
        } else if (!(found.rev > answer.rev && fromPending)) {
          anomalies.push(
            `${account.name}: task ${id} answered as ${describeTask(answer)}, stored as ${describeTask(found)}`,
          );
        }
      } else if (found !== undefined && !fromPending) {
        anomalies.push(`${account.name}: task ${id} stored (${describeTask(found)}) though no write of it is known`);
      }
      if (fromPending) {
        figures.unknownFoundCommitted += 1;
        // What the restart shows is now known, as if it had been answered.
        learnAnswer(account, found, anomalies);
      }
    }
    account.pending.clear();
    // An array POST is one transaction, also when the process dies during it.
    for (const ids of account.cutArrays) {
      const committed = ids.filter((id) => stored.has(id)).length;
      figures.cutArraysChecked += 1;
      if (committed !== 0 && committed !== ids.length) {
        anomalies.push(
          `${account.name}: an array POST cut by the kill left ${committed} of its ${ids.length} new tasks`,
        );
      }
    }
    account.cutArrays = [];
    figures.writesChecked += account.answeredThisCycle;
    account.answeredThisCycle = 0;

    // The cursor held at the kill continues exactly: the changes after it, nothing twice or missed.
    const checkContinuation = async (cursor: string): Promise<string> => {
      const position = positionOf(cursor);
      const continued = await continueFrom(client, account, cursor, random);
      const expected = full.filter((task) => task.rev > position);
      figures.cursorsContinued += 1;
      figures.cursorEntriesChecked += continued.entries.length;
      if (!isDeepStrictEqual(continued.entries, expected)) {
        const got = continued.entries.map((task) => task.rev).join(',');
        const want = expected.map((task) => task.rev).join(',');
        anomalies.push(
          `${account.name}: cursor ${cursor} continued with revs [${got}], the store has [${want}] after it`,
        );
      }
      for (const task of account.answered.values()) {
        if (task.rev > position && !continued.entries.some((entry) => entry.id === task.id && entry.rev >= task.rev)) {
          anomalies.push(`${account.name}: cursor ${cursor} skipped the answered write rev ${task.rev} of ${task.id}`);
        }
      }
      for (const entry of continued.entries) account.replica.set(entry.id, entry);
      return continued.cursor;
    };
    const held = account.cursor;
    account.cursor = await checkContinuation(held);
    if (account.oldCursors.length > 0) await checkContinuation(random.pick(account.oldCursors));
    account.oldCursors.push(held);
    if (account.oldCursors.length > 20) account.oldCursors.shift();

    // A client that only ever synced incrementally, across every kill so far, holds the store.
    if (
      account.replica.size !== stored.size ||
      [...stored].some(([id, task]) => !isDeepStrictEqual(account.replica.get(id), task))
    ) {
      anomalies.push(
        `${account.name}: the sync replica (${account.replica.size} tasks) differs from the store (${stored.size})`,
      );
    }
  } finally {
    client.close();
  }
}

/** `PRAGMA integrity_check` on the file the killed process left, read-only, before any restart. */
function checkIntegrity(dataDir: string, figures: CrashFigures): void {
  const db = new Database(path.join(dataDir, SQLITE_FILE_NAME), { readonly: true, fileMustExist: true });
  try {
    const result = db.pragma('integrity_check', { simple: true });
    figures.integrityChecks += 1;
    if (result !== 'ok') figures.anomalies.push(`integrity_check after kill ${figures.kills}: ${String(result)}`);
  } finally {
    db.close();
  }
}

/** Runs `kills` write-kill-restart-verify cycles on one data folder; returns what was checked. */
export async function runCrashCycles(options: CrashOptions): Promise<CrashFigures> {
  const random = new Random(options.seed);
  const dataDir = await makeTempDir('crash');
  const figures: CrashFigures = {
    kills: 0,
    answeredRequests: 0,
    answeredWrites: 0,
    writesChecked: 0,
    recordsCompared: 0,
    unknownOutcomes: 0,
    refusals: 0,
    unknownFoundCommitted: 0,
    cutArraysChecked: 0,
    cursorsContinued: 0,
    cursorEntriesChecked: 0,
    integrityChecks: 0,
    tasksAtEnd: 0,
    anomalies: [],
  };
  const accounts: AccountState[] = [];
  for (let index = 0; index < (options.accounts ?? 2); index += 1) {
    const name = `crash${index}`;
    accounts.push(new AccountState(name, await newAccount({ dataDir }, name), startCursor(dataDir)));
  }
  const writersPerAccount = options.writersPerAccount ?? 3;
  const maxRunMs = options.maxRunMs ?? 700;
  const taskCap = options.taskCap ?? 5000;

  let server = await startServe({ dataDir, http: true });
  try {
    for (let number = 1; number <= options.kills; number += 1) {
      const cycle: Cycle = { number, random, stopped: false, serial: 0 };
      const clients: KeepAliveClient[] = [];
      const work: Promise<void>[] = [];
      for (const account of accounts) {
        for (let index = 0; index < writersPerAccount; index += 1) {
          const client = new KeepAliveClient(server.origin);
          clients.push(client);
          work.push(writer(account, client, cycle, figures, taskCap));
        }
        const client = new KeepAliveClient(server.origin);
        clients.push(client);
        work.push(syncer(account, client, cycle, figures));
      }
      // A random moment: now and then right at the start, mostly in the thick of it.
      const delay = random.chance(0.1) ? random.int(0, 20) : random.int(30, maxRunMs);
      await new Promise((resolve) => setTimeout(resolve, delay));
      await server.stop('SIGKILL');
      figures.kills += 1;
      cycle.stopped = true;
      await Promise.all(work);
      for (const client of clients) client.close();

      checkIntegrity(dataDir, figures);
      server = await startServe({ dataDir, http: true });
      for (const account of accounts) await verifyAfterRestart(server, account, random, figures);
      if (figures.anomalies.length > 0) break;
    }
    const client = new KeepAliveClient(server.origin);
    try {
      for (const account of accounts) figures.tasksAtEnd += (await fullState(client, account)).length;
    } finally {
      client.close();
    }
  } finally {
    await server.stop('SIGKILL');
  }
  return figures;
}
