import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RecordsByKind, SyncKind } from '../../domain/sync.js';
import { TASK_LIMITS } from '../../domain/task.js';
import type { Services } from '../../service/services.js';
import type { RecordResource } from '../resources.js';
import { authenticate, type Gate } from '../auth.js';
import { readJsonBody } from '../request-body.js';
import { rawPath, readQuery } from '../query.js';
import { readListQuery } from '../schemas/list-query.js';
import { listBody } from '../list-body.js';
import type { ListStreams } from '../list-streams.js';
import { sendJson } from '../send.js';
import { WireError } from '../wire/errors.js';
import type { RenderCache } from '../wire/render-cache.js';
import type { AnswerCache, KeptAnswer } from '../answer-cache.js';
import { gzipAnswer, markGzipped, wantsGzip } from '../compression.js';
import { idempotencyOf } from '../idempotency-key.js';
import { writeAnswer } from '../wire/envelopes.js';

export interface RecordRouteDeps {
  readonly gate: Gate;
  readonly services: Services;
  readonly renderCache: RenderCache;
  readonly answers: AnswerCache;
  readonly streams: ListStreams;
}

/** The record id of `/v1/<resource>/<id>`; ids may hold `/`, `+` and `=`, encoded or not. */
function idOf(request: FastifyRequest, prefix: string): string {
  try {
    return decodeURIComponent(rawPath(request).slice(prefix.length));
  } catch {
    throw WireError.invalidParameter('id');
  }
}

function sendKept(request: FastifyRequest, reply: FastifyReply, kept: KeptAnswer): FastifyReply {
  if (!wantsGzip(request, kept.body.length)) return sendJson(reply, kept.body);
  kept.gzipped ??= gzipAnswer(kept.body);
  markGzipped(reply);
  return sendJson(reply, kept.gzipped);
}

const RENDER_CACHED_PER_LISTING = 1000;

/** GET list, GET one, POST one or many: the same rules for every synced resource. */
export function registerRecordRoutes<K extends SyncKind>(
  app: FastifyInstance,
  deps: RecordRouteDeps,
  resource: RecordResource<K>,
): void {
  const listings = deps.services.listing;
  const base = `/v1/${resource.path}`;

  async function list(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const grant = await authenticate(deps.gate, request);
    const { account } = grant;
    const zone = account.timezone;
    const query = readListQuery(request, zone);
    // Clients ask the same again and again, polling with their cursor or paging anew: an answer
    // is kept whole while the account stands still.
    const key = `${account.id}|${resource.kind}|${zone}|${query.after?.epoch ?? ''}.${query.after?.rev ?? ''}.${query.after?.purgedRev ?? ''}|${query.updatedAfter ?? ''}|${query.limit ?? ''}`;
    // The head read with the token, when the store read it then, is as fresh as a read of its own.
    const kept = deps.answers.get(key, grant.head ?? (await listings.head(account.id)));
    if (kept !== undefined) return sendKept(request, reply, kept);
    const listing = await listings.open(account.id, resource.kind, query);
    // The first records of a listing are rendered once and kept; a long listing renders the
    // rest directly, so it does not push every page out of the cache.
    let rendered = 0;
    const render = (record: RecordsByKind[K]): string =>
      (rendered += 1) <= RENDER_CACHED_PER_LISTING
        ? deps.renderCache.render(account.id, zone, record, resource.render)
        : resource.render(record, zone);
    const body = await listBody(listing, render, { streams: deps.streams, accountId: account.id });
    if (typeof body !== 'string') return sendJson(reply, body);
    return sendKept(request, reply, deps.answers.set(key, listing.head, body));
  }

  /** `GET /v1/<resource>/<id>`; with no id, the list. */
  async function getOne(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const id = idOf(request, `${base}/`);
    if (id === '') return list(request, reply);
    const { account } = await authenticate(deps.gate, request);
    readQuery(request, []);
    // An id outside the id alphabet (a NUL, say) names nothing and never reaches the store.
    if (!TASK_LIMITS.idPattern.test(id)) throw WireError.notFound(resource.kind, id);
    const record = await listings.get(account.id, resource.kind, id);
    return sendJson(reply, resource.render(record, account.timezone));
  }

  async function upsert(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const { account } = await authenticate(deps.gate, request);
    readQuery(request, []);
    const { inputs, asArray } = resource.readBody(readJsonBody(request), account.timezone);
    const asked = { many: asArray, idempotency: idempotencyOf(request) };
    const outcome = await resource.upsert(deps.services, account, inputs, asked);
    // Rendered after the commit, outside the write lock, in the zone the outcome was written in
    // (a replay shows the first answer's zone even if the account's zone changed since).
    const rendered = outcome.records.map((record) => resource.render(record, outcome.zone));
    return sendJson(reply, writeAnswer(rendered, outcome.many));
  }

  app.get(base, list);
  app.get(`${base}/*`, getOne);
  app.post(base, upsert);
}
