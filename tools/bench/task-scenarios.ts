import { gunzipSync } from 'node:zlib';
import { z } from 'zod';
import { headerOf, sendOk, type Answer, type RequestSpec } from './http-client.js';
import type { Scenario } from './measure.js';

/*
 * The scenarios against the task service (A-E of issue #5), each prepared through the public API
 * the way a client would get there, and each checked on one real answer before it is measured.
 */

const listSchema = z.object({
  entries: z.array(z.object({ id: z.string() })),
  cursor: z.string(),
  has_more: z.boolean(),
});
type ListAnswer = z.infer<typeof listSchema>;

function authorization(token: string): Record<string, string> {
  return { authorization: `OAuth ${token}` };
}

/** The answer body as text, gunzipped when the server compressed it. */
function bodyText(answer: Answer): string {
  return headerOf(answer, 'content-encoding') === 'gzip'
    ? gunzipSync(answer.body).toString('utf8')
    : answer.body.toString('utf8');
}

function expectStatus(answer: Answer, status: number, what: string): void {
  if (answer.status !== status) {
    throw new Error(`${what}: expected status ${status}, got ${answer.status}: ${bodyText(answer).slice(0, 300)}`);
  }
}

function listOf(answer: Answer, what: string): ListAnswer {
  expectStatus(answer, 200, what);
  return listSchema.parse(JSON.parse(bodyText(answer)));
}

function expectEntries(list: ListAnswer, count: number, hasMore: boolean, what: string): void {
  if (list.entries.length !== count || list.has_more !== hasMore) {
    throw new Error(
      `${what}: expected ${count} entries (has_more ${String(hasMore)}), got ${list.entries.length} (${String(list.has_more)})`,
    );
  }
}

async function getList(port: number, token: string, query: string): Promise<ListAnswer> {
  const answer = await sendOk(port, { method: 'GET', path: `/v1/tasks?${query}`, headers: authorization(token) });
  return listOf(answer, `GET /v1/tasks?${query}`);
}

/** A: 50 tasks of a 1,000-task account from the cursor of position 500; B: the same gzipped. */
async function listPageRequest(port: number, token: string, gzip: boolean): Promise<RequestSpec> {
  const { cursor } = await getList(port, token, 'limit=500');
  return {
    method: 'GET',
    path: `/v1/tasks?limit=50&cursor=${encodeURIComponent(cursor)}`,
    headers: { ...authorization(token), ...(gzip ? { 'accept-encoding': 'gzip' } : {}) },
  };
}

/** A and B, with a page of each account of `tokens` in turn. */
export async function listPageScenario(port: number, tokens: readonly string[], gzip: boolean): Promise<Scenario> {
  const requests: RequestSpec[] = [];
  for (const token of tokens) requests.push(await listPageRequest(port, token, gzip));
  return {
    requests,
    unique: false,
    check: (answer) => {
      expectEntries(listOf(answer, 'list page'), 50, true, 'list page');
      const encoding = headerOf(answer, 'content-encoding');
      if (gzip !== (encoding === 'gzip')) throw new Error(`list page: content-encoding ${encoding ?? 'none'}`);
    },
  };
}

/** A task as a client creates it: no id (the server makes one), a project by name, a date. */
const NEW_TASK = {
  title: 'Buy milk & eggs for the weekend',
  notes: 'The organic ones from the market, not the supermarket <3',
  start_at: '2026-11-23 09:00:00 +0100',
  project: 'Home & Garden',
  tags: ['errand', 'home'],
  priority: 1,
};

function jsonPost(token: string, body: unknown): RequestSpec {
  return {
    method: 'POST',
    path: '/v1/tasks',
    headers: { ...authorization(token), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  };
}

/** C: one durable create per request, into each account of `tokens` in turn. */
export function createScenario(tokens: readonly string[]): Scenario {
  return {
    requests: tokens.map((token) => jsonPost(token, NEW_TASK)),
    unique: false,
    check: (answer) => {
      expectStatus(answer, 200, 'create');
      z.object({ id: z.string(), title: z.string() }).parse(JSON.parse(bodyText(answer)));
    },
  };
}

/** D: 100 new tasks in one array POST (one transaction). */
export function arrayScenario(token: string): Scenario {
  const tasks = Array.from({ length: 100 }, (_, index) => ({ ...NEW_TASK, title: `${NEW_TASK.title} #${index + 1}` }));
  return {
    requests: [jsonPost(token, tasks)],
    unique: false,
    check: (answer) => {
      expectStatus(answer, 200, 'array create');
      const { entries } = z
        .object({ entries: z.array(z.object({ id: z.string() })) })
        .parse(JSON.parse(bodyText(answer)));
      if (entries.length !== 100) throw new Error(`array create: ${entries.length} entries`);
    },
  };
}

/**
 * E: incremental sync returning 10 changes. Prepared like a syncing client: take the cursor of
 * "everything up to now", then another client changes 10 tasks (the account's 10 oldest); the
 * cursor then answers exactly those 10, however large the account.
 */
async function syncRequest(port: number, token: string): Promise<RequestSpec> {
  const head = await getList(port, token, 'updated_after=2100-01-01');
  expectEntries(head, 0, false, 'head cursor');
  const oldest = await getList(port, token, 'limit=10');
  const changes = oldest.entries.map((entry, index) => ({
    id: entry.id,
    title: `Changed on another device (${index + 1})`,
  }));
  const changed = await sendOk(port, jsonPost(token, changes));
  expectStatus(changed, 200, 'sync preparation');
  return {
    method: 'GET',
    path: `/v1/tasks?cursor=${encodeURIComponent(head.cursor)}`,
    headers: authorization(token),
  };
}

/** E, with a sync of each account of `tokens` in turn; nothing may write to them meanwhile. */
export async function syncScenario(port: number, tokens: readonly string[]): Promise<Scenario> {
  const requests: RequestSpec[] = [];
  for (const token of tokens) requests.push(await syncRequest(port, token));
  return {
    requests,
    unique: false,
    check: (answer) => expectEntries(listOf(answer, 'sync'), 10, false, 'sync'),
  };
}
