import { readFile, mkdir, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import path from 'node:path';
import { nowMicros } from '../../src/domain/time.js';
import { AccountService } from '../../src/service/accounts.js';
import { openStore } from '../../src/store/open.js';
import { OtherLoad } from './cpu.js';
import { megabytes } from './format.js';
import { AccountDataset } from './dataset.js';
import { send, sendOk, type Answer, type RequestSpec } from './http-client.js';
import { vcalendar, vtodo } from './ical.js';
import { awaitQuiet, measure, type MeasureContext, type Measured } from './measure.js';
import { PeakMemory } from './memory.js';
import { progress } from './progress.js';
import { startRadicale } from './radicale.js';
import { startTaskService, type Server } from './servers.js';

/*
 * V: CalDAV (issue #23). Against the real `serve` on a SQLite store of its own, next to Radicale
 * holding the same 10,000 generated tasks:
 * - V1, sync-collection answering 10 changes on a 10,000-task collection, under load (wrk);
 * - V2, a first sync of that collection as DAVx5 does it: PROPFIND of the collection, an initial
 *   sync-collection, then calendar-multiget in pages of 10, one client, with the server's memory
 *   growth;
 * - V3, one calendar-query over a 100,000-task collection, read as it streams, with the server's
 *   peak memory.
 */

export const SYNC_TASKS = 10_000;
export const QUERY_TASKS = 100_000;
/** DAVx5 fetches what a sync named in multigets of this many hrefs. */
const MULTIGET_PAGE = 10;
const TASKS_PER_TRANSACTION = 5000;

interface Credential {
  readonly username: string;
  readonly token: string;
}

export interface FirstSync {
  readonly tasks: number;
  readonly requests: number;
  readonly seconds: number;
  readonly rssBeforeBytes: number;
  readonly peakRssBytes: number;
  readonly otherCores: number;
}

export interface StreamedQuery {
  readonly tasks: number;
  readonly bytes: number;
  readonly seconds: number;
  readonly rssBeforeBytes: number;
  readonly peakRssBytes: number;
  readonly otherCores: number;
}

export interface CalDavResults {
  readonly radicaleVersion: string | undefined;
  readonly syncOurs: Measured;
  readonly syncRadicale?: Measured;
  /**
   * The same sync-collection sent by one client, one after another: the median time of one, ms.
   * V1's goal compares these, since Radicale may answer none within wrk's window and time-out.
   */
  readonly syncOneClientMs: number;
  readonly syncOneClientRadicaleMs?: number;
  readonly firstSync: FirstSync;
  readonly firstSyncRadicale?: FirstSync;
  readonly query: StreamedQuery;
}

async function rssBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(status);
  return match?.[1] === undefined ? 0 : Number(match[1]) * 1024;
}

function basic(username: string, password: string): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}` };
}

/** A store of two accounts whose tasks are all in the inbox: 10,000 and 100,000 of them. */
async function makeStore(dataDir: string): Promise<{ sync: Credential; query: Credential }> {
  const store = await openStore({ engine: 'sqlite', dataDir });
  try {
    await store.migrate();
    const accounts = new AccountService(store, nowMicros);
    const fill = async (username: string, index: number, tasks: number): Promise<Credential> => {
      const account = await accounts.addUser(username, null, 'Europe/Berlin');
      const dataset = new AccountDataset(index);
      await store.write(account.id, async (tx) => {
        for (const context of dataset.contexts) await tx.put('context', context);
      });
      for (let left = tasks; left > 0; left -= TASKS_PER_TRANSACTION) {
        await store.write(account.id, async (tx) => {
          for (let i = 0; i < Math.min(left, TASKS_PER_TRANSACTION); i += 1)
            await tx.put('task', { ...dataset.task(), project: null, trashed: null, deleted: null });
        });
      }
      return { username, token: await accounts.createToken(username, 'write', 'bench', null) };
    };
    return { sync: await fill('davsync', 901, SYNC_TASKS), query: await fill('davquery', 902, QUERY_TASKS) };
  } finally {
    await store.close();
  }
}

function syncRequest(collection: string, headers: Record<string, string>, token: string): RequestSpec {
  return {
    method: 'REPORT',
    path: collection,
    headers: { ...headers, 'content-type': 'application/xml; charset=utf-8', depth: '1' },
    body:
      '<?xml version="1.0" encoding="utf-8"?><D:sync-collection xmlns:D="DAV:">' +
      `<D:sync-token>${token}</D:sync-token><D:sync-level>1</D:sync-level><D:prop><D:getetag/></D:prop></D:sync-collection>`,
  };
}

function multigetRequest(collection: string, headers: Record<string, string>, hrefs: readonly string[]): RequestSpec {
  return {
    method: 'REPORT',
    path: collection,
    headers: { ...headers, 'content-type': 'application/xml; charset=utf-8', depth: '1' },
    body:
      '<?xml version="1.0" encoding="utf-8"?><C:calendar-multiget xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">' +
      `<D:prop><D:getetag/><C:calendar-data/></D:prop>${hrefs.map((href) => `<D:href>${href}</D:href>`).join('')}</C:calendar-multiget>`,
  };
}

const PROPFIND_COLLECTION =
  '<?xml version="1.0" encoding="utf-8"?><D:propfind xmlns:D="DAV:" xmlns:CS="http://calendarserver.org/ns/" ' +
  'xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><D:displayname/><D:resourcetype/><CS:getctag/><D:sync-token/>' +
  '<C:supported-calendar-component-set/><D:current-user-privilege-set/></D:prop></D:propfind>';

/**
 * Sends as a CalDAV client does: a 503 (the server shedding load, Retry-After: 1) is tried again
 * after a moment, up to 20 times; any other failure throws.
 */
async function sendAsClient(port: number, spec: RequestSpec): Promise<Answer> {
  for (let attempt = 1; ; attempt += 1) {
    const answer = await send(port, spec);
    if (answer.status !== 503 || attempt === 20) return sendOkAnswer(spec, answer);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function sendOkAnswer(spec: RequestSpec, answer: Answer): Answer {
  if (answer.status < 200 || answer.status > 299)
    throw new Error(
      `${spec.method} ${spec.path} answered ${answer.status}: ${answer.body.toString('utf8').slice(0, 300)}`,
    );
  return answer;
}

/** The sync-token and the hrefs of a multistatus, with any namespace prefix. */
function tokenOf(answer: Answer): string {
  const token = /<(?:\w+:)?sync-token>([^<]+)<\/(?:\w+:)?sync-token>/.exec(answer.body.toString('utf8'))?.[1];
  if (token === undefined) throw new Error('no sync-token in the answer');
  return token;
}

function hrefsOf(answer: Answer, collection: string): string[] {
  return [...answer.body.toString('utf8').matchAll(/<(?:\w+:)?href>([^<]+)<\/(?:\w+:)?href>/g)]
    .flatMap((match) => (match[1] === undefined ? [] : [match[1]]))
    .filter((href) => href !== collection);
}

/** V2: what DAVx5 does on a first sync of a collection, one request after the other. */
async function firstSync(server: Server, collection: string, headers: Record<string, string>): Promise<FirstSync> {
  await awaitQuiet([server]);
  const rssBeforeBytes = await rssBytes(server.child.pid);
  const memory = await PeakMemory.start(server.child.pid, 50);
  const others = await OtherLoad.start([server.child.pid], server.companion);
  const started = process.hrtime.bigint();
  await sendAsClient(server.port, {
    method: 'PROPFIND',
    path: collection,
    headers: { ...headers, 'content-type': 'application/xml; charset=utf-8', depth: '0' },
    body: PROPFIND_COLLECTION,
  });
  const listing = await sendAsClient(server.port, syncRequest(collection, headers, ''));
  const hrefs = hrefsOf(listing, collection);
  let requests = 2;
  let fetched = 0;
  for (let at = 0; at < hrefs.length; at += MULTIGET_PAGE) {
    const page = await sendAsClient(
      server.port,
      multigetRequest(collection, headers, hrefs.slice(at, at + MULTIGET_PAGE)),
    );
    fetched += page.body.toString('utf8').split('BEGIN:VTODO').length - 1;
    requests += 1;
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const otherCores = await others.stop();
  const peakRssBytes = await memory.stop();
  if (fetched !== hrefs.length)
    throw new Error(`${server.name}: the multigets answered ${fetched} of ${hrefs.length} tasks`);
  return { tasks: hrefs.length, requests, seconds, rssBeforeBytes, peakRssBytes, otherCores };
}

/** V3: one calendar-query over the whole collection, read as it comes and kept nowhere. */
async function streamedQuery(
  server: Server,
  collection: string,
  headers: Record<string, string>,
): Promise<StreamedQuery> {
  await awaitQuiet([server]);
  const rssBeforeBytes = await rssBytes(server.child.pid);
  const memory = await PeakMemory.start(server.child.pid, 50);
  const others = await OtherLoad.start([server.child.pid], server.companion);
  const started = process.hrtime.bigint();
  const body =
    '<?xml version="1.0" encoding="utf-8"?><C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">' +
    '<D:prop><D:getetag/><C:calendar-data/></D:prop><C:filter><C:comp-filter name="VCALENDAR">' +
    '<C:comp-filter name="VTODO"/></C:comp-filter></C:filter></C:calendar-query>';
  const { tasks, bytes } = await new Promise<{ tasks: number; bytes: number }>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        method: 'REPORT',
        path: collection,
        headers: { ...headers, 'content-type': 'application/xml; charset=utf-8', depth: '1' },
        agent: false,
      },
      (res) => {
        if (res.statusCode !== 207) {
          reject(new Error(`calendar-query answered ${String(res.statusCode)}`));
          res.resume();
          return;
        }
        let count = 0;
        let total = 0;
        let carry = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          total += Buffer.byteLength(chunk);
          const text = carry + chunk;
          count += text.split('BEGIN:VTODO').length - 1;
          carry = text.slice(-('BEGIN:VTODO'.length - 1));
        });
        res.once('error', reject);
        res.once('end', () => resolve({ tasks: count, bytes: total }));
      },
    );
    req.once('error', reject);
    req.end(body);
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const otherCores = await others.stop();
  const peakRssBytes = await memory.stop();
  return { tasks, bytes, seconds, rssBeforeBytes, peakRssBytes, otherCores };
}

/** Radicale's calendar of the same 10,000 tasks, written as its storage keeps them, then read once. */
async function radicaleCollection(
  workDir: string,
  connections: number,
): Promise<{ server: Server; collection: string }> {
  const server = await startRadicale(workDir, connections);
  const collection = '/bench/davsync/';
  const folder = path.join(workDir, 'radicale', 'collections', 'collection-root', 'bench', 'davsync');
  await mkdir(folder, { recursive: true });
  await writeFile(
    path.join(folder, '.Radicale.props'),
    JSON.stringify({ 'C:supported-calendar-component-set': 'VTODO', 'D:displayname': 'Tasks', tag: 'VCALENDAR' }),
  );
  const dataset = new AccountDataset(901);
  for (let i = 0; i < SYNC_TASKS; i += 1) {
    const draft = { ...dataset.task(), project: null, trashed: null, deleted: null };
    await writeFile(path.join(folder, `${draft.id}.ics`), vcalendar([vtodo(draft)]));
  }
  return { server, collection };
}

/** A sync token, then 10 tasks changed: the request that answers exactly those 10. */
async function tenChanges(
  server: Server,
  collection: string,
  headers: Record<string, string>,
  change: (href: string, index: number) => Promise<void>,
): Promise<RequestSpec> {
  const start = await sendAsClient(server.port, syncRequest(collection, headers, ''));
  const hrefs = hrefsOf(start, collection);
  const token = tokenOf(start);
  for (const [index, href] of hrefs.slice(0, 10).entries()) await change(href, index);
  const report = syncRequest(collection, headers, token);
  const changed = hrefsOf(await sendAsClient(server.port, report), collection);
  if (changed.length !== 10) throw new Error(`${server.name}: the sync answered ${changed.length} changes, not 10`);
  return report;
}

/** One client sending `spec` again and again: the median time of one answer, in ms. */
async function oneClientMs(server: Server, spec: RequestSpec): Promise<number> {
  const times: number[] = [];
  const started = performance.now();
  // Up to 9 answers, or as many as 60 s allow, at least one: Radicale may take seconds for each.
  while (times.length < 9 && (times.length === 0 || performance.now() - started < 60_000)) {
    const before = performance.now();
    await sendAsClient(server.port, spec);
    times.push(performance.now() - before);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? Number.NaN;
}

export async function runCalDavPart(
  context: MeasureContext,
  workDir: string,
  radicaleVersion: string | undefined,
): Promise<CalDavResults> {
  const folder = path.join(workDir, 'caldav');
  const dataDir = path.join(folder, 'data');
  await mkdir(dataDir, { recursive: true });
  progress(
    `V: a store of ${SYNC_TASKS.toLocaleString('en')} and ${QUERY_TASKS.toLocaleString('en')} tasks in one collection`,
  );
  const { sync, query } = await makeStore(dataDir);
  const ours = await startTaskService('task-service-caldav', { engine: 'sqlite', dataDir }, folder);
  let results: Omit<
    CalDavResults,
    'syncRadicale' | 'syncOneClientRadicaleMs' | 'firstSyncRadicale' | 'radicaleVersion'
  >;
  try {
    const syncHeaders = basic(sync.username, sync.token);
    const inbox = `/dav/calendars/${sync.username}/inbox/`;
    progress('V2: a first sync of 10,000 tasks as DAVx5 does it (task-service)');
    const first = await firstSync(ours, inbox, syncHeaders);
    progress(
      `  first sync: ${first.requests} requests in ${first.seconds.toFixed(2)} s, RSS +${megabytes(first.peakRssBytes - first.rssBeforeBytes)}`,
    );
    const report = await tenChanges(ours, inbox, syncHeaders, async (href, index) => {
      const id = decodeURIComponent(href.slice(inbox.length, -'.ics'.length));
      await sendOk(ours.port, {
        method: 'POST',
        path: '/v1/tasks',
        headers: { authorization: `Bearer ${sync.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id, title: `Changed on another device (${index + 1})` }),
      });
    });
    progress('V1: sync-collection answering 10 changes, 10,000-task collection (task-service)');
    const syncOurs = await measure(context, ours, [report], false);
    const syncOneClientMs = await oneClientMs(ours, report);
    progress('V3: calendar-query over 100,000 tasks, streamed (task-service)');
    const streamed = await streamedQuery(
      ours,
      `/dav/calendars/${query.username}/inbox/`,
      basic(query.username, query.token),
    );
    progress(
      `  calendar-query: ${streamed.tasks} tasks, ${megabytes(streamed.bytes)} in ${streamed.seconds.toFixed(1)} s, RSS +${megabytes(streamed.peakRssBytes - streamed.rssBeforeBytes)}`,
    );
    if (streamed.tasks !== QUERY_TASKS) throw new Error(`calendar-query answered ${streamed.tasks} tasks`);
    results = { syncOurs, syncOneClientMs, firstSync: first, query: streamed };
  } finally {
    await ours.stop();
  }
  if (radicaleVersion === undefined) return { ...results, radicaleVersion };

  progress(`V: Radicale ${radicaleVersion} with the same 10,000 tasks`);
  try {
    return { ...results, radicaleVersion, ...(await radicaleRows(context, folder)) };
  } catch (error) {
    // Our rows stand without the peer's: say why they are missing rather than losing the run.
    progress(`V: Radicale's rows failed: ${error instanceof Error ? error.message : String(error)}`);
    return { ...results, radicaleVersion };
  }
}

/** V1 and V2 on Radicale. */
async function radicaleRows(
  context: MeasureContext,
  folder: string,
): Promise<Pick<CalDavResults, 'syncRadicale' | 'syncOneClientRadicaleMs' | 'firstSyncRadicale'>> {
  const { server, collection } = await radicaleCollection(folder, context.settings.connections);
  try {
    const headers = basic('bench', 'x');
    // Radicale reads and caches every item on its first listing: minutes for 10,000 on a busy machine.
    progress('V: Radicale reads its 10,000 items once (not measured)');
    await send(server.port, syncRequest(collection, headers, ''), 900_000);
    progress('V2: the same first sync (Radicale)');
    const firstSyncRadicale = await firstSync(server, collection, headers);
    const report = await tenChanges(server, collection, headers, async (href, index) => {
      const answer = await send(server.port, { method: 'GET', path: href, headers });
      const changed = answer.body
        .toString('utf8')
        .replace(/SUMMARY:[^\r\n]*/, `SUMMARY:Changed on another device (${index + 1})`);
      await sendOk(server.port, {
        method: 'PUT',
        path: href,
        headers: { ...headers, 'content-type': 'text/calendar' },
        body: changed,
      });
    });
    progress('V1: sync-collection answering 10 changes (Radicale)');
    const syncRadicale = await measure(context, server, [report], false);
    progress('V1: the same, one client, one after another (Radicale)');
    const syncOneClientRadicaleMs = await oneClientMs(server, report);
    return { syncRadicale, syncOneClientRadicaleMs, firstSyncRadicale };
  } finally {
    await server.stop();
  }
}
