/**
 * The terminal client, on the SDK: `login`, `add`, `ls`, `done`, `sync` and `logout`, in the same
 * `task-service` command as the admin commands. People get lines of text, scripts `--json`.
 */
import {
  calendarDateIn,
  OAuthRefusal,
  parseQuickAdd,
  quickAddTask,
  revokeToken,
  TaskServiceClient,
  TaskServiceError,
  type Task,
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
import { syncLocalCopy } from './local-copy.js';
import { loginThroughBrowser } from './loopback.js';

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
  inbox: (task: Task) => isOpen(task) && task.attribute === 'inbox',
  next: (task: Task) => isOpen(task) && task.attribute === 'next',
  scheduled: (task: Task) => isOpen(task) && task.attribute === 'plan',
  someday: (task: Task) => isOpen(task) && task.attribute === 'noplan',
  waiting: (task: Task) => isOpen(task) && task.attribute === 'waiting',
  completed: (task: Task) => task.completed !== null && task.trashed === null,
} as const;

type Box = keyof typeof BOXES;

function isBox(word: string): word is Box {
  return Object.hasOwn(BOXES, word);
}

function isOpen(task: Task): boolean {
  return task.completed === null && task.trashed === null && task.deleted === null;
}

/** The credentials kept (renewed first when a browser sign-in's access token is at its end). */
async function readCredentials(dir: string): Promise<Credentials> {
  const stored = await storedCredentials(dir);
  if (stored === undefined)
    throw new ClientUsageError(
      'not logged in: run "task-service login <url>" (or login <url> --token <token|->) first',
    );
  return renewedIfDue(dir, stored);
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

/** Keeps the credentials once the service has taken them, and says whose account it is. */
async function login(credentials: Credentials, dir: string, output: Output, asJson: boolean): Promise<void> {
  const { url, token } = credentials;
  const client = new TaskServiceClient({ baseUrl: url, token, retry: { retries: 1 } });
  const settings = await client.settings();
  await saveCredentials(dir, credentials);
  if (asJson) output.json({ url, username: settings.username, timezone: settings.timezone });
  else output.out(plain(`logged in to ${url} as ${settings.username} (${settings.timezone})`));
}

/**
 * Tasks matching `--project` and `--context`: names compared case-insensitively, a leading # or @
 * optional on either side (quick add keeps a context's `@`, other clients may not).
 */
function labelFilter(project: string | undefined, context: string | undefined): (task: Task) => boolean {
  const bare = (name: string, mark: string): string => name.replace(new RegExp(`^\\${mark}`), '').toLowerCase();
  const same = (name: string | null, wanted: string | undefined, mark: string): boolean =>
    wanted === undefined || (name !== null && bare(name, mark) === bare(wanted, mark));
  return (task) => same(task.project, project, '#') && same(task.context, context, '@');
}

function byStartThenRev(a: Task, b: Task): number {
  return (a.start_at?.getTime() ?? Infinity) - (b.start_at?.getTime() ?? Infinity) || a.rev - b.rev;
}

function byCompletedNewestFirst(a: Task, b: Task): number {
  return (b.completed?.getTime() ?? 0) - (a.completed?.getTime() ?? 0);
}

/** The open task an id or a title prefix names: exactly one, or a clear error. */
function pickTask(tasks: readonly Task[], wanted: string): Task {
  const open = tasks.filter(isOpen);
  const byId = open.find((task) => task.id === wanted);
  if (byId !== undefined) return byId;
  const prefix = wanted.toLowerCase();
  const matches = open.filter((task) => task.title.toLowerCase().startsWith(prefix));
  if (matches.length === 1 && matches[0] !== undefined) return matches[0];
  if (matches.length === 0)
    throw new ClientUsageError(plain(`no open task has the id or a title starting with "${wanted}"`));
  throw new ClientUsageError(
    plain(
      `"${wanted}" names ${matches.length} open tasks; give more of the title or the id:\n${matches.map((task) => `  ${task.id}  ${task.title}`).join('\n')}`,
    ),
  );
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
    const tokens = await loginThroughBrowser({ url, clientId, scope, tell: (line) => output.tell(line) });
    await login(credentialsFromTokens(url, clientId, tokens), dir, output, asJson);
    return;
  }
  if (command.name === 'logout') {
    if (rest.length > 0) throw new ClientUsageError('usage: task-service logout');
    const stored = await storedCredentials(dir);
    if (stored === undefined) throw new ClientUsageError('not logged in: nothing to forget');
    // The refresh token ends the whole grant: every access token of this sign-in stops working.
    if (stored.oauth !== undefined)
      await revokeToken(stored.url, { clientId: stored.oauth.clientId, token: stored.oauth.refreshToken });
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
  const client = new TaskServiceClient({ baseUrl: credentials.url, token: credentials.token });
  switch (command.name) {
    case 'add': {
      const text = rest.join(' ');
      const parsed = parseQuickAdd(text);
      if (parsed.title.trim() === '')
        throw new ClientUsageError('usage: task-service add "<title and tokens>" (the title is empty)');
      const zone = (await client.settings()).timezone;
      const task = await client.tasks.save(quickAddTask(parsed, calendarDateIn(new Date(), zone)));
      if (asJson) output.json(task);
      else output.out(`added ${taskLine(task, zone)}`);
      return;
    }
    case 'ls': {
      const [boxName] = rest;
      if (rest.length > 1 || (boxName !== undefined && !isBox(boxName))) {
        throw new ClientUsageError(
          'usage: task-service ls [inbox|next|scheduled|someday|waiting|completed] [--project P] [--context C]',
        );
      }
      const zone = (await client.settings()).timezone;
      const inBox = boxName === undefined ? isOpen : BOXES[boxName];
      const labels = labelFilter(command.flags.text('project'), command.flags.text('context'));
      const tasks = (await client.tasks.all())
        .filter((task) => inBox(task) && labels(task))
        .sort(boxName === 'completed' ? byCompletedNewestFirst : byStartThenRev);
      if (asJson) output.json(tasks);
      else for (const task of tasks) output.out(taskLine(task, zone));
      return;
    }
    case 'done': {
      const wanted = rest.join(' ');
      if (wanted === '') throw new ClientUsageError('usage: task-service done <id|title prefix>');
      const zone = (await client.settings()).timezone;
      const task = pickTask(await client.tasks.all(), wanted);
      const saved = await client.tasks.save({ id: task.id, completed: new Date(), if_rev: task.rev });
      if (asJson) output.json(saved);
      else if (saved.completed === null && saved.start_at !== null)
        output.out(plain(`repeats: ${saved.title} next on ${calendarDateIn(saved.start_at, zone)}`));
      else output.out(`done ${taskLine(saved, zone)}`);
      return;
    }
    case 'sync': {
      if (rest.length > 0) throw new ClientUsageError('usage: task-service sync');
      const report = await syncLocalCopy(client, dir, credentials.url);
      if (asJson) {
        output.json(report);
        return;
      }
      if (report.restarted) output.out('the saved cursor had expired: listed everything again');
      for (const task of report.added) output.out(plain(`+ ${task.title}`));
      for (const task of report.changed) output.out(plain(`~ ${task.title}`));
      for (const task of report.removed) output.out(plain(`- ${task.title}`));
      output.out(
        report.added.length + report.changed.length + report.removed.length === 0
          ? `up to date: ${report.total} tasks`
          : `${report.added.length} added, ${report.changed.length} changed, ${report.removed.length} removed: ${report.total} tasks`,
      );
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
  if (error instanceof TypeError && error.message === 'fetch failed') {
    // fetch says only "fetch failed"; the cause says why (refused, a certificate not trusted, …).
    const cause =
      error.cause instanceof Error ? `: ${'code' in error.cause ? String(error.cause.code) : error.cause.message}` : '';
    return { code: 1, message: `the service could not be reached${cause}` };
  }
  return undefined;
}
