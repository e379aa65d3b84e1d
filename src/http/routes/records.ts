import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RecordsByKind, SyncKind } from '../../domain/sync.js';
import { TASK_LIMITS } from '../../domain/task.js';
import type { Services } from '../../service/services.js';
import type { RecordResource } from '../resources.js';
import { authenticate, type Gate } from '../auth.js';
import { readJsonBody } from '../request-body.js';
import { rawPath, readQuery } from '../query.js';
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import type { Account } from '../../domain/account.js';
import type { AccountHead } from '../../domain/sync.js';
import type { Admission } from '../admission.js';
import { readListQuery, type ListCall } from '../schemas/list-query.js';
import { listBody } from '../list-body.js';
import type { ListStreams } from '../list-streams.js';
import { sendJson } from '../send.js';
import { WireError } from '../wire/errors.js';
import type { RenderCache } from '../wire/render-cache.js';
import type { AnswerCache, KeptAnswer } from '../answer-cache.js';
import { gzipAnswer, markGzipped, wantsGzip } from '../compression.js';
import { idempotencyOf } from '../idempotency-key.js';
import { isEmptyList, writeAnswer } from '../wire/envelopes.js';

export interface RecordRouteDeps {
  readonly gate: Gate;
  readonly services: Services;
  readonly renderCache: RenderCache;
  readonly answers: AnswerCache;
  readonly streams: ListStreams;
  /** Lets a request waiting for changes leave the count in flight while it waits. */
  readonly admission: Admission;
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

/** A waiting request's socket may stay silent this much longer than its wait. */
const WAIT_SOCKET_SLACK_MS = 10_000;

/** GET list, GET one, POST one or many: the same rules for every synced resource. */
export function registerRecordRoutes<K extends SyncKind>(
  app: FastifyInstance,
  deps: RecordRouteDeps,
  resource: RecordResource<K>,
): void {
  const listings = deps.services.listing;
  const base = `/v1/${resource.path}`;

  /** A list answer: kept whole (small), or a stream from its snapshot (large, so never empty). */
  type ListAnswer = { readonly kept: KeptAnswer } | { readonly stream: Readable };

  async function readAnswer(
    account: Account,
    query: ListCall,
    knownHead: AccountHead | undefined,
  ): Promise<ListAnswer> {
    const zone = account.timezone;
    // Clients ask the same again and again, polling with their cursor or paging anew: an answer
    // is kept whole while the account stands still.
    const key = `${account.id}|${resource.kind}|${zone}|${query.after?.epoch ?? ''}.${query.after?.rev ?? ''}.${query.after?.purgedRev ?? ''}|${query.updatedAfter ?? ''}|${query.limit ?? ''}`;
    const kept = deps.answers.get(key, knownHead ?? (await listings.head(account.id)));
    if (kept !== undefined) return { kept };
    const listing = await listings.open(account.id, resource.kind, query);
    // The first records of a listing are rendered once and kept; a long listing renders the
    // rest directly, so it does not push every page out of the cache.
    let rendered = 0;
    const render = (record: RecordsByKind[K]): string =>
      (rendered += 1) <= RENDER_CACHED_PER_LISTING
        ? deps.renderCache.render(account.id, zone, record, resource.render)
        : resource.render(record, zone);
    const body = await listBody(listing, render, { streams: deps.streams, accountId: account.id });
    if (typeof body !== 'string') return { stream: body };
    return { kept: deps.answers.set(key, listing.head, body) };
  }

  function sendAnswer(request: FastifyRequest, reply: FastifyReply, answer: ListAnswer): FastifyReply {
    return 'kept' in answer ? sendKept(request, reply, answer.kept) : sendJson(reply, answer.stream);
  }

  async function list(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const grant = await authenticate(deps.gate, request);
    const query = readListQuery(request, grant.account.timezone);
    // The head read with the token, when the store read it then, is as fresh as a read of its own.
    if (query.waitSeconds === undefined)
      return sendAnswer(request, reply, await readAnswer(grant.account, query, grant.head));
    return waitForChanges(request, reply, grant.account, query, query.waitSeconds * 1000, grant.head);
  }

  /**
   * API.md 4.6: an empty answer is held until a change of this kind is heard, then read again;
   * when the time runs out, a change of another kind of the account is heard (so that one wait
   * tells a client of every change of the account), the process stops or the client leaves, the
   * empty answer read last is sent. While it waits the request holds no snapshot and no
   * connection of the store, and is not counted in flight by the load shedder.
   */
  async function waitForChanges(
    request: FastifyRequest,
    reply: FastifyReply,
    account: Account,
    query: ListCall,
    waitMs: number,
    firstHead: AccountHead | undefined,
  ): Promise<FastifyReply> {
    const deadline = performance.now() + waitMs;
    let knownHead = firstHead;
    for (;;) {
      // Watched before reading, so that a change committed after the read still wakes it.
      const watch = deps.services.waits.watch(account.id, resource.kind);
      let answer: ListAnswer;
      try {
        answer = await readAnswer(account, query, knownHead);
      } catch (error) {
        watch.end('timeout');
        throw error;
      }
      knownHead = undefined;
      const left = deadline - performance.now();
      if (!('kept' in answer) || !isEmptyList(answer.kept.body) || left <= 0) {
        watch.end('timeout');
        return sendAnswer(request, reply, answer);
      }
      const resume = deps.admission.rest(reply);
      const leave = (): void => watch.end('timeout');
      reply.raw.once('close', leave);
      // The socket's inactivity time-out (server-options.ts) must not cut a wait short. A request
      // injected in-process (tests) has a stand-in socket without time-outs.
      const socket: Partial<Pick<Socket, 'setTimeout'>> = request.raw.socket;
      socket.setTimeout?.(left + WAIT_SOCKET_SLACK_MS);
      const end = await watch.until(left);
      reply.raw.removeListener('close', leave);
      resume();
      if (end !== 'changed' || reply.raw.destroyed) return sendAnswer(request, reply, answer);
    }
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
