import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Account } from '../../domain/account.js';
import { TASK_LIMITS } from '../../domain/task.js';
import type { ListingService } from '../../service/listing.js';
import type { RecordsByKind, SyncKind } from '../../store/store.js';
import { authenticate, type Gate } from '../auth.js';
import { readJsonBody } from '../request-body.js';
import { rawPath, readQuery } from '../query.js';
import { readListQuery } from '../schemas/list-query.js';
import { listBody } from '../list-body.js';
import { sendJson } from '../send.js';
import { WireError } from '../wire/errors.js';
import type { RenderCache } from '../wire/render-cache.js';
import type { AnswerCache, KeptAnswer } from '../answer-cache.js';
import { gzipAnswer, markGzipped, wantsGzip } from '../compression.js';
import { idempotencyOf } from '../idempotency-key.js';
import type { Answering } from '../../service/idempotency.js';

/** One synced resource (`/v1/tasks`, …): how its records are read from a body, written and shown. */
export interface RecordResource<K extends SyncKind, Input> {
  readonly path: string;
  readonly kind: K;
  readonly render: (record: RecordsByKind[K], zone: string) => string;
  readonly readBody: (body: unknown, zone: string) => { inputs: Input[]; asArray: boolean };
  readonly upsert: (
    account: Account,
    inputs: readonly Input[],
    asArray: boolean,
    answering: Answering<RecordsByKind[K]>,
  ) => Promise<string>;
}

export interface RecordRouteDeps {
  readonly gate: Gate;
  readonly listing: ListingService;
  readonly renderCache: RenderCache;
  readonly answers: AnswerCache;
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
export function registerRecordRoutes<K extends SyncKind, Input>(
  app: FastifyInstance,
  deps: RecordRouteDeps,
  resource: RecordResource<K, Input>,
): void {
  const base = `/v1/${resource.path}`;

  const list = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const { account } = await authenticate(deps.gate, request);
    const zone = account.timezone;
    const query = readListQuery(request, zone);
    // Clients ask the same again and again, polling with their cursor or paging anew: an answer
    // is kept whole while the account stands still.
    const key = `${account.id}|${resource.kind}|${zone}|${query.afterRev ?? ''}|${query.updatedAfter ?? ''}|${query.limit ?? ''}`;
    const kept = deps.answers.get(key, await deps.listing.head(account.id));
    if (kept !== undefined) return sendKept(request, reply, kept);
    const listing = await deps.listing.open(account.id, resource.kind, query);
    // The first records of a listing are rendered once and kept; a long listing renders the
    // rest directly, so it does not push every page out of the cache.
    let rendered = 0;
    const render = (record: RecordsByKind[K]): string =>
      (rendered += 1) <= RENDER_CACHED_PER_LISTING
        ? deps.renderCache.render(account.id, zone, record, resource.render)
        : resource.render(record, zone);
    const body = await listBody(listing, render);
    if (typeof body !== 'string') return sendJson(reply, body);
    return sendKept(request, reply, deps.answers.set(key, listing.head, body));
  };

  app.get(base, list);
  app.get(`${base}/*`, async (request, reply) => {
    const id = idOf(request, `${base}/`);
    if (id === '') return list(request, reply);
    const { account } = await authenticate(deps.gate, request);
    readQuery(request, []);
    // An id outside the id alphabet (a NUL, say) names nothing and never reaches the store.
    if (!TASK_LIMITS.idPattern.test(id)) throw WireError.notFound(resource.kind, id);
    const record = await deps.listing.get(account.id, resource.kind, id);
    return sendJson(reply, resource.render(record, account.timezone));
  });

  app.post(base, async (request, reply) => {
    const { account } = await authenticate(deps.gate, request);
    readQuery(request, []);
    const { inputs, asArray } = resource.readBody(readJsonBody(request), account.timezone);
    const render = (stored: readonly RecordsByKind[K][]): string => {
      const rendered = stored.map((record) => resource.render(record, account.timezone));
      return asArray ? `{"entries":[${rendered.join(',')}]}` : (rendered[0] ?? '{}');
    };
    const answer = await resource.upsert(account, inputs, asArray, { render, idempotency: idempotencyOf(request) });
    return sendJson(reply, answer);
  });
}
