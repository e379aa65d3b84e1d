import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { NEW_TASK, type TaskDraft } from '../../src/domain/task.js';
import { AccountDataset } from './dataset.js';
import { send, sendOk, waitUntilAnswering, type Answer, type RequestSpec } from './http-client.js';
import { vcalendar, vtodo } from './ical.js';
import { UNIQUE_MARK } from './load.js';
import { concrete } from './measure.js';
import { freePort, runCommand, startChild } from './processes.js';
import type { Server } from './servers.js';

/*
 * The peer: Radicale, the self-hosted CalDAV server (Debian package `radicale`), keeping tasks as
 * VTODOs in a calendar collection. Started on loopback with a configuration of our own in a
 * temporary folder (no authentication; rights: each user owns their own collections; everything
 * else at Radicale's defaults, fsync of every change included), and driven over the same kind
 * of requests a CalDAV task client sends.
 */

/** Radicale's version, or undefined when it is not installed. */
export async function radicaleVersion(): Promise<string | undefined> {
  const { code, stdout, stderr } = await runCommand('radicale', ['--version']);
  if (code !== 0) return undefined;
  return (stdout || stderr).trim();
}

const USER = 'bench';
/** With `auth type = none` any name is accepted; Basic credentials tell Radicale whose collections these are. */
const HEADERS = { authorization: `Basic ${Buffer.from(`${USER}:x`).toString('base64')}` };
const SYNC_COLLECTION = `/${USER}/tasks/`;
const CREATE_COLLECTION = `/${USER}/inbox/`;

export async function startRadicale(scratchDir: string, connections: number): Promise<Server> {
  const folder = path.join(scratchDir, 'radicale');
  await mkdir(folder, { recursive: true });
  const port = await freePort();
  const config = path.join(folder, 'config');
  await writeFile(
    config,
    [
      '[server]',
      `hosts = 127.0.0.1:${port}`,
      // Its default is 8 at a time; allowed as many as the load tool opens, so none waits unaccepted.
      `max_connections = ${connections}`,
      '[auth]',
      'type = none',
      '[rights]',
      'type = owner_only',
      '[storage]',
      `filesystem_folder = ${path.join(folder, 'collections')}`,
      '',
    ].join('\n'),
  );
  // -C replaces the system configuration (/etc/radicale/config) rather than adding to it.
  const child = startChild('radicale', 'radicale', ['-C', config], path.join(folder, 'radicale.log'));
  let gone = false;
  void child.exited.then(() => (gone = true));
  try {
    await waitUntilAnswering(port, { method: 'OPTIONS', path: '/', headers: HEADERS }, 30_000, () => gone);
  } catch (error) {
    await child.stop();
    throw new Error(`Radicale did not start: ${String(error)}\n${child.logTail()}`, { cause: error });
  }
  return { name: 'radicale', port, child, stop: () => child.stop() };
}

const MKCALENDAR_BODY = `<?xml version="1.0" encoding="utf-8"?>
<C:mkcalendar xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">
  <D:set><D:prop>
    <D:displayname>Tasks</D:displayname>
    <C:supported-calendar-component-set><C:comp name="VTODO"/></C:supported-calendar-component-set>
  </D:prop></D:set>
</C:mkcalendar>`;

function syncReport(token: string): RequestSpec {
  return {
    method: 'REPORT',
    path: SYNC_COLLECTION,
    headers: { ...HEADERS, 'content-type': 'application/xml; charset=utf-8', depth: '0' },
    body: `<?xml version="1.0" encoding="utf-8"?>
<D:sync-collection xmlns:D="DAV:">
  <D:sync-token>${token}</D:sync-token>
  <D:sync-level>1</D:sync-level>
  <D:prop><D:getetag/></D:prop>
</D:sync-collection>`,
  };
}

function multiget(hrefs: readonly string[]): RequestSpec {
  return {
    method: 'REPORT',
    path: SYNC_COLLECTION,
    headers: { ...HEADERS, 'content-type': 'application/xml; charset=utf-8', depth: '1' },
    body: `<?xml version="1.0" encoding="utf-8"?>
<C:calendar-multiget xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">
  <D:prop><D:getetag/><C:calendar-data/></D:prop>
${hrefs.map((href) => `  <D:href>${href}</D:href>`).join('\n')}
</C:calendar-multiget>`,
  };
}

function putTask(href: string, body: string, createOnly: boolean): RequestSpec {
  return {
    method: 'PUT',
    path: href,
    headers: {
      ...HEADERS,
      'content-type': 'text/calendar; charset=utf-8',
      ...(createOnly ? { 'if-none-match': '*' } : {}),
    },
    body,
  };
}

function expectStatus(answer: Answer, status: number, what: string): void {
  if (answer.status !== status) {
    throw new Error(
      `Radicale ${what}: expected ${status}, got ${answer.status}: ${answer.body.toString('utf8').slice(0, 300)}`,
    );
  }
}

function syncTokenOf(answer: Answer): string {
  const token = /<sync-token>([^<]+)<\/sync-token>/.exec(answer.body.toString('utf8'))?.[1];
  if (token === undefined) throw new Error('Radicale answered no sync-token');
  return token;
}

function hrefsOf(answer: Answer): string[] {
  return [...answer.body.toString('utf8').matchAll(/<href>([^<]+)<\/href>/g)].flatMap((match) =>
    match[1] === undefined ? [] : [match[1]],
  );
}

/** The task a client creates, as the CalDAV peer stores it (the same fields as the task service's C). */
const CREATED_TASK: TaskDraft = {
  ...NEW_TASK,
  id: UNIQUE_MARK,
  title: 'Buy milk & eggs for the weekend',
  notes: 'The organic ones from the market, not the supermarket <3',
  attribute: 'plan',
  allDay: false,
  startAt: Date.UTC(2026, 10, 23, 8) * 1000,
  endAt: null,
  completed: null,
  trashed: null,
  deleted: null,
  project: null,
  context: null,
  tags: ['errand', 'home'],
  priority: 1,
  repeater: null,
  icalExtras: '',
};

export interface RadicaleScenarios {
  /** PUT of one new VTODO (If-None-Match: *) to a fresh href: the peer of C. */
  readonly create: readonly RequestSpec[];
  /** REPORT sync-collection answering 10 changes, then calendar-multiget of those 10: the peer of E. */
  readonly sync: readonly RequestSpec[];
  readonly syncCollectionSize: number;
}

/**
 * Makes the two calendar collections (MKCALENDAR), fills the sync collection with `tasks` of the
 * generated tasks (a PUT each), takes its sync-token, changes 10 tasks, and checks that the token
 * then answers exactly those 10.
 */
export async function prepareRadicale(server: Server, accountIndex: number, tasks: number): Promise<RadicaleScenarios> {
  const { port } = server;
  for (const collection of [SYNC_COLLECTION, CREATE_COLLECTION]) {
    const made = await send(port, {
      method: 'MKCALENDAR',
      path: collection,
      headers: { ...HEADERS, 'content-type': 'application/xml' },
      body: MKCALENDAR_BODY,
    });
    expectStatus(made, 201, `MKCALENDAR ${collection}`);
  }

  const dataset = new AccountDataset(accountIndex);
  const drafts = Array.from({ length: tasks }, () => dataset.task());
  // One PUT per task, as a client moving its tasks in would, several at a time.
  let next = 0;
  const uploader = async (): Promise<void> => {
    for (let draft = drafts[next++]; draft !== undefined; draft = drafts[next++]) {
      const answer = await send(port, putTask(`${SYNC_COLLECTION}${draft.id}.ics`, vcalendar([vtodo(draft)]), true));
      expectStatus(answer, 201, 'PUT of a task');
    }
  };
  await Promise.all(Array.from({ length: 32 }, uploader));

  const start = await sendOk(port, syncReport(''));
  const token = syncTokenOf(start);
  for (const [index, draft] of drafts.slice(0, 10).entries()) {
    const changed = { ...draft, title: `Changed on another device (${index + 1})` };
    const answer = await send(port, putTask(`${SYNC_COLLECTION}${draft.id}.ics`, vcalendar([vtodo(changed)]), false));
    if (answer.status !== 201 && answer.status !== 204) expectStatus(answer, 204, 'change of a task');
  }
  const report = syncReport(token);
  const changes = await sendOk(port, report);
  const hrefs = hrefsOf(changes);
  if (hrefs.length !== 10) throw new Error(`Radicale sync answered ${hrefs.length} changes, not 10`);
  const get = multiget(hrefs);
  const fetched = await sendOk(port, get);
  if (hrefsOf(fetched).length !== 10) throw new Error('Radicale multiget did not answer the 10 tasks');

  const create = putTask(`${CREATE_COLLECTION}${UNIQUE_MARK}.ics`, vcalendar([vtodo(CREATED_TASK)]), true);
  expectStatus(await send(port, concrete(create, 'capture')), 201, 'create');
  return { create: [create], sync: [report, get], syncCollectionSize: tasks };
}
