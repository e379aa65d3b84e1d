/**
 * The terminal client, on the SDK: `login`, `add`, `ls`, `done`, `sync` and `logout`, in the same
 * `task-service` command as the admin commands. People get lines of text, scripts `--json`.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import {
  CALENDAR_DATE,
  calendarDateIn,
  formatWireDate,
  OAuthRefusal,
  parseQuickAdd,
  quickAddTask,
  revokeToken,
  startOfDayIn,
  TaskServiceClient,
  TaskServiceError,
  type Task,
  type TaskWrite,
} from '../../client/index.js';
import type { ClientCommand } from '../../config/command.js';
import {
  credentialsFromTokens,
  renewedIfDue,
  saveCredentials,
  storedCredentials,
  type Credentials,
} from './credentials.js';
import { CREDENTIALS_FILE, LOCAL_COPY_FILE, removeFile } from './files.js';
import { plain, taskLine } from './format.js';
import {
  readLocalCopy,
  saveLocalCopy,
  syncLocalCopy,
  type SyncReport,
  withTask,
  type KeptTask,
  type LocalCopy,
  type QueuedWrite,
} from './local-copy.js';
import { loginThroughBrowser } from './loopback.js';
import { reaching, ServiceUnreachable, TRUST_HINT, unreachableOf } from './unreachable.js';

/** A mistake in how the client was called, or a state it cannot work in (not logged in). */
export class ClientUsageError extends Error {
  override name = 'ClientUsageError';
}

/** Where a command reads and prints. */
export interface Output {
  out(line: string): void;
  json(value: unknown): void;
  /** Standard input, whole (for `--token -`). */
  readInput(): Promise<string>;
  /** A line for the person, beside the output (standard error): what to do, what is awaited. */
  tell(line: string): void;
}

const BOXES = {
  inbox: (task: KeptTask) => isOpen(task) && task.attribute === 'inbox',
  next: (task: KeptTask) => isOpen(task) && task.attribute === 'next',
  scheduled: (task: KeptTask) => isOpen(task) && task.attribute === 'plan',
  someday: (task: KeptTask) => isOpen(task) && task.attribute === 'noplan',
  waiting: (task: KeptTask) => isOpen(task) && task.attribute === 'waiting',
  completed: (task: KeptTask) => task.completed !== null && task.trashed === null,
} as const;

type Box = keyof typeof BOXES;

function isBox(word: string): word is Box {
  return Object.hasOwn(BOXES, word);
}

function isOpen(task: KeptTask): boolean {
  return task.completed === null && task.trashed === null && task.deleted === null;
}

/**
 * The credentials kept, a browser sign-in's access token renewed first when it is at its end
 * (unless the service cannot be reached: the command then works on the local copy).
 */
async function readCredentials(dir: string): Promise<Credentials> {
  const stored = await storedCredentials(dir);
  if (stored === undefined)
    throw new ClientUsageError(
      'not logged in: run "task-service login <url>" (or login <url> --token <token|->) first',
    );
  try {
    return await reaching(stored.url, () => renewedIfDue(dir, stored));
  } catch (error) {
    if (error instanceof ServiceUnreachable && !error.untrustedCertificate) return stored;
    throw error;
  }
}

function serviceUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ClientUsageError(`not a URL: ${text}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ClientUsageError(`not an http(s) URL: ${text}`);
  return url.origin + url.pathname.replace(/\/$/, '');
}

/** Retries are few: a service that is down is said (and the copy used) within a second. */
const CLIENT_RETRY = { retries: 1 } as const;

/** Keeps the credentials once the service has taken them, and says whose account it is. */
async function login(credentials: Credentials, dir: string, output: Output, asJson: boolean): Promise<void> {
  const { url, token } = credentials;
  const client = new TaskServiceClient({ baseUrl: url, token, retry: CLIENT_RETRY });
  const settings = await reaching(url, () => client.settings());
  await saveCredentials(dir, credentials);
  // The zone kept with the copy, for the commands that run while the service cannot be reached.
  await saveLocalCopy(dir, { ...(await readLocalCopy(dir, url)), zone: settings.timezone });
  if (asJson) output.json({ url, username: settings.username, timezone: settings.timezone });
  else output.out(plain(`logged in to ${url} as ${settings.username} (${settings.timezone})`));
}

/**
 * Tasks matching `--project` and `--context`: names compared case-insensitively, a leading # or @
 * optional on either side (quick add keeps a context's `@`, other clients may not).
 */
function labelFilter(project: string | undefined, context: string | undefined): (task: KeptTask) => boolean {
  const bare = (name: string, mark: string): string => name.replace(new RegExp(`^\\${mark}`), '').toLowerCase();
  const same = (name: string | null, wanted: string | undefined, mark: string): boolean =>
    wanted === undefined || (name !== null && bare(name, mark) === bare(wanted, mark));
  return (task) => same(task.project, project, '#') && same(task.context, context, '@');
}

function byStartThenRev(a: KeptTask, b: KeptTask): number {
  return (a.start_at?.getTime() ?? Infinity) - (b.start_at?.getTime() ?? Infinity) || a.rev - b.rev;
}

function byCompletedNewestFirst(a: KeptTask, b: KeptTask): number {
  return (b.completed?.getTime() ?? 0) - (a.completed?.getTime() ?? 0);
}

/** The open task an id or a title prefix names: exactly one, or a clear error. */
function pickTask(tasks: Iterable<KeptTask>, wanted: string): KeptTask {
  const open = [...tasks].filter(isOpen);
  const byId = open.find((task) => task.id === wanted);
  if (byId !== undefined) return byId;
  const prefix = wanted.toLowerCase();
  const matches = open.filter((task) => task.title.toLowerCase().startsWith(prefix));
  if (matches.length === 1 && matches[0] !== undefined) return matches[0];
  if (matches.length === 0)
    throw new ClientUsageError(plain(`no open task has the id or a title starting with "${wanted}"`));
  // One task a line: each title shown as text, the lines between them real line breaks.
  throw new ClientUsageError(
    [
      plain(`"${wanted}" names ${matches.length} open tasks; give more of the title or the id:`),
      ...matches.map((task) => plain(`  ${task.id}  ${task.title}`)),
    ].join('\n'),
  );
}

/**
 * The service's answer, or undefined when it cannot be reached (and the command goes on with the
 * local copy). A certificate the client does not trust is no reason to go on without the service:
 * it is said, with what to do.
 */
async function unlessUnreachable<T>(url: string, work: () => Promise<T>): Promise<T | undefined> {
  try {
    return await reaching(url, work);
  } catch (error) {
    if (error instanceof ServiceUnreachable && !error.untrustedCertificate) return undefined;
    throw error;
  }
}

/** A task id made here, as the web app makes its own: 128 random bits, URL-safe. */
function newTaskId(): string {
  return randomBytes(16).toString('base64url');
}

/** A quick add's task as the queue keeps it: the fields quick add sets, its start a calendar date. */
function addition(id: string, made: TaskWrite): QueuedWrite['write'] {
  const { title, attribute, all_day, project, context, tags, priority, start_at } = made;
  return {
    id,
    ...(title === undefined ? {} : { title }),
    ...(attribute === undefined ? {} : { attribute }),
    ...(all_day === undefined ? {} : { all_day }),
    ...(typeof project === 'string' ? { project } : {}),
    ...(typeof context === 'string' ? { context } : {}),
    ...(tags === undefined || tags === null ? {} : { tags }),
    ...(priority === undefined ? {} : { priority }),
    ...(typeof start_at === 'string' ? { start_at } : {}),
  };
}

/** How the copy shows a task of this client's, queued, until the service has answered for it. */
function queuedTask(write: QueuedWrite['write'], zone: string, title: string): KeptTask {
  const day = write.start_at ?? '';
  const start = CALENDAR_DATE.test(day) ? startOfDayIn(day, zone) : null;
  return {
    id: write.id,
    title,
    // Not yet on the service: no change number of its own.
    rev: 0,
    attribute: write.attribute ?? (start === null ? 'inbox' : 'plan'),
    all_day: write.all_day ?? false,
    start_at: start,
    end_at: null,
    completed: null,
    trashed: null,
    deleted: null,
    project: write.project ?? null,
    context: write.context ?? null,
    tags: write.tags ?? [],
    priority: write.priority ?? 0,
    repeater: null,
  };
}

/** Says the service was not reached and what was done instead. */
function tellUnreachable(output: Output, url: string, instead: string): void {
  output.tell(`task-service: the service at ${url} could not be reached: ${instead}`);
}

/** Saves a write (its id and Idempotency-Key made here) or, with the service out of reach, queues it. */
async function saveOrQueue(
  client: TaskServiceClient,
  copy: LocalCopy,
  queued: QueuedWrite,
  offline: boolean,
): Promise<{ copy: LocalCopy; saved: Task | undefined }> {
  const write: TaskWrite = queued.write;
  const saved = offline
    ? undefined
    : await unlessUnreachable(copy.url, () => client.tasks.save(write, { idempotencyKey: queued.key }));
  if (saved !== undefined) return { copy: withTask(copy, saved), saved };
  return { copy: { ...copy, queue: [...copy.queue, queued] }, saved: undefined };
}

/** Runs one client command; throws ClientUsageError or the SDK's errors for the caller to show. */
export async function runClientCommand(command: ClientCommand, output: Output): Promise<void> {
  const rest = command.args;
  const dir = command.configDir;
  const asJson = command.flags.on('json');
  if (command.name === 'login') {
    const [given] = rest;
    if (given === undefined || rest.length > 1) throw new ClientUsageError('usage: task-service login <url>');
    const url = serviceUrl(given);
    const pasted = command.flags.text('token');
    if (pasted !== undefined) {
      // `--token -` reads it from standard input, keeping it out of the shell history and `ps`.
      const token = pasted === '-' ? (await output.readInput()).trim() : pasted;
      if (token === '') throw new ClientUsageError('the token is empty');
      await login({ url, token }, dir, output, asJson);
      return;
    }
    const clientId = command.flags.text('client-id');
    if (clientId === undefined || clientId === '') {
      throw new ClientUsageError(
        "login needs the terminal client's --client-id (ask the administrator; see task-service login --help), or --token",
      );
    }
    const scope = command.flags.text('scope') ?? 'write';
    if (scope !== 'read' && scope !== 'write')
      throw new ClientUsageError(`--scope must be read or write, got "${scope}"`);
    // Reached (and its certificate trusted) before the person is sent to the browser for nothing.
    await reaching(url, () => fetch(`${url}/.well-known/oauth-authorization-server`));
    const tokens = await reaching(url, () =>
      loginThroughBrowser({ url, clientId, scope, tell: (line) => output.tell(line) }),
    );
    await login(credentialsFromTokens(url, clientId, tokens), dir, output, asJson);
    return;
  }
  if (command.name === 'logout') {
    if (rest.length > 0) throw new ClientUsageError('usage: task-service logout');
    const stored = await storedCredentials(dir);
    if (stored === undefined) throw new ClientUsageError('not logged in: nothing to forget');
    // The refresh token ends the whole grant: every access token of this sign-in stops working.
    const { oauth } = stored;
    if (oauth !== undefined)
      await reaching(stored.url, () =>
        revokeToken(stored.url, { clientId: oauth.clientId, token: oauth.refreshToken }),
      );
    await removeFile(dir, CREDENTIALS_FILE);
    await removeFile(dir, LOCAL_COPY_FILE);
    output.out(
      stored.oauth === undefined
        ? `logged out of ${stored.url}; the pasted token still works until it is revoked (token revoke, or the web app)`
        : `logged out of ${stored.url}; the sign-in is revoked`,
    );
    return;
  }
  const credentials = await readCredentials(dir);
  const { url } = credentials;
  const client = new TaskServiceClient({ baseUrl: url, token: credentials.token, retry: CLIENT_RETRY });
  let copy = await readLocalCopy(dir, url);
  /** The account's zone from the service, kept with the copy; undefined when it cannot be reached. */
  const onlineZone = async (): Promise<string | undefined> => {
    const zone = (await unlessUnreachable(url, () => client.settings()))?.timezone;
    if (zone !== undefined) copy = { ...copy, zone };
    return zone;
  };
  switch (command.name) {
    case 'add': {
      const text = rest.join(' ');
      const parsed = parseQuickAdd(text);
      if (parsed.title.trim() === '')
        throw new ClientUsageError('usage: task-service add "<title and tokens>" (the title is empty)');
      const online = await onlineZone();
      const zone = online ?? copy.zone ?? 'UTC';
      const write = addition(newTaskId(), quickAddTask(parsed, calendarDateIn(new Date(), zone), {}, zone));
      const queued: QueuedWrite = { key: randomUUID(), what: plain(`add ${parsed.title}`), write };
      const result = await saveOrQueue(client, copy, queued, online === undefined);
      copy = result.saved === undefined ? withTask(result.copy, queuedTask(write, zone, parsed.title)) : result.copy;
      await saveLocalCopy(dir, copy);
      const task = result.saved ?? copy.tasks.get(write.id);
      if (result.saved === undefined) tellUnreachable(output, url, 'the task is queued; task-service sync sends it');
      if (asJson) output.json(task);
      else if (task !== undefined)
        output.out(`${result.saved === undefined ? 'queued' : 'added'} ${taskLine(task, zone)}`);
      return;
    }
    case 'ls': {
      const [boxName] = rest;
      if (rest.length > 1 || (boxName !== undefined && !isBox(boxName))) {
        throw new ClientUsageError(
          'usage: task-service ls [inbox|next|scheduled|someday|waiting|completed] [--project P] [--context C]',
        );
      }
      const online = await onlineZone();
      const listed = online === undefined ? undefined : await unlessUnreachable(url, () => client.tasks.all());
      if (listed === undefined) {
        if (copy.syncedAt === undefined && copy.tasks.size === 0)
          throw new ServiceUnreachable(url, 'no answer, and no local copy yet: task-service sync makes one');
        const asOf = copy.syncedAt === undefined ? 'never synced' : `synced ${copy.syncedAt}`;
        const waiting = copy.queue.length === 0 ? '' : `, ${copy.queue.length} changes queued`;
        tellUnreachable(output, url, `the local copy (${asOf}${waiting}); it may be stale`);
      } else await saveLocalCopy(dir, copy);
      const zone = online ?? copy.zone ?? 'UTC';
      const inBox = boxName === undefined ? isOpen : BOXES[boxName];
      const labels = labelFilter(command.flags.text('project'), command.flags.text('context'));
      const tasks = [...(listed ?? copy.tasks.values())]
        .filter((task) => inBox(task) && labels(task))
        .sort(boxName === 'completed' ? byCompletedNewestFirst : byStartThenRev);
      if (asJson) output.json(tasks);
      else for (const task of tasks) output.out(taskLine(task, zone));
      return;
    }
    case 'done': {
      const wanted = rest.join(' ');
      if (wanted === '') throw new ClientUsageError('usage: task-service done <id|title prefix>');
      const online = await onlineZone();
      const listed = online === undefined ? undefined : await unlessUnreachable(url, () => client.tasks.all());
      const zone = online ?? copy.zone ?? 'UTC';
      const task = pickTask(listed ?? copy.tasks.values(), wanted);
      const now = new Date();
      const write = {
        id: task.id,
        completed: formatWireDate(now, zone),
        // A task queued here has no change number yet: nothing to compare.
        ...(task.rev > 0 ? { if_rev: task.rev } : {}),
      };
      const queued: QueuedWrite = { key: randomUUID(), what: plain(`done ${task.title}`), write };
      const result = await saveOrQueue(client, copy, queued, listed === undefined);
      copy = result.saved === undefined ? withTask(result.copy, { ...task, completed: now }) : result.copy;
      await saveLocalCopy(dir, copy);
      const saved = result.saved;
      if (saved === undefined) {
        tellUnreachable(output, url, 'the completion is queued; task-service sync sends it');
        if (asJson) output.json(copy.tasks.get(task.id));
        else output.out(`queued done ${taskLine({ ...task, completed: now }, zone)}`);
      } else if (asJson) output.json(saved);
      else if (saved.completed === null && saved.start_at !== null)
        output.out(plain(`repeats: ${saved.title} next on ${calendarDateIn(saved.start_at, zone)}`));
      else output.out(`done ${taskLine(saved, zone)}`);
      return;
    }
    case 'sync': {
      if (rest.length > 0) throw new ClientUsageError('usage: task-service sync [--follow]');
      const follow = command.flags.on('follow');
      let report;
      try {
        report = await reaching(url, () => syncLocalCopy(client, dir, url));
      } catch (error) {
        const left = (await readLocalCopy(dir, url)).queue.length;
        if (error instanceof ServiceUnreachable && left > 0)
          output.tell(`task-service: ${left} ${left === 1 ? 'change stays' : 'changes stay'} queued for the next sync`);
        throw error;
      }
      printSyncReport(report, output, asJson, true);
      // --follow: each sync waits at the service for the next change (API.md 4.6), until Ctrl-C.
      while (follow) {
        report = await reaching(url, () => syncLocalCopy(client, dir, url, FOLLOW_WAIT_SECONDS));
        printSyncReport(report, output, asJson, false);
      }
      return;
    }
    default:
      throw new ClientUsageError(`no such command: ${command.name}`);
  }
}

/** The exit code and message for a failure of a client command. */
export function clientFailure(error: unknown): { code: number; message: string } | undefined {
  if (error instanceof ClientUsageError) return { code: 2, message: error.message };
  if (error instanceof OAuthRefusal) {
    const what = error.code === 'access_denied' ? 'the sign-in was refused in the browser' : 'not logged in';
    return { code: 1, message: plain(`${what}: ${error.message}`) };
  }
  if (error instanceof TaskServiceError) {
    const hint = error.retcode === 'E401' ? ' (the token was refused: log in again)' : '';
    return { code: 1, message: plain(`${error.message}${hint}`) };
  }
  const unreachable = unreachableOf(error, 'the given address');
  if (unreachable !== undefined) {
    return {
      code: 1,
      message: plain(unreachable.untrustedCertificate ? `${unreachable.message}: ${TRUST_HINT}` : unreachable.message),
    };
  }
  return undefined;
}

/** How long each round of `sync --follow` lets the service hold its answer: the contract's most. */
const FOLLOW_WAIT_SECONDS = 60;

/** What a sync changed, as lines (or JSON); a round of --follow that changed nothing says nothing. */
function printSyncReport(report: SyncReport, output: Output, asJson: boolean, first: boolean): void {
  const changes = report.added.length + report.changed.length + report.removed.length;
  if (!first && changes === 0 && report.sent.length === 0 && report.refused.length === 0 && !report.restarted) return;
  if (asJson) {
    output.json(report);
    return;
  }
  for (const what of report.sent) output.out(`sent: ${what}`);
  for (const what of report.refused) output.out(plain(`not sent, refused by the service: ${what}`));
  if (report.restarted) output.out('the saved cursor had expired: listed everything again');
  for (const task of report.added) output.out(plain(`+ ${task.title}`));
  for (const task of report.changed) output.out(plain(`~ ${task.title}`));
  for (const task of report.removed) output.out(plain(`- ${task.title}`));
  output.out(
    changes === 0
      ? `up to date: ${report.total} tasks`
      : `${report.added.length} added, ${report.changed.length} changed, ${report.removed.length} removed: ${report.total} tasks`,
  );
}
