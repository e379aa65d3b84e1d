import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Account } from '../domain/account.js';
import type { ListStreams } from '../http/list-streams.js';
import type { Services } from '../service/services.js';
import { DavError } from './errors.js';
import { documentEnd, documentStart, type Markup, type QName } from './xml/writer.js';

/** What every CalDAV handler works with: the account, what it may do, the request and the reply. */
export interface DavContext {
  readonly services: Services;
  /** The slots of large answers, shared with /v1's lists: each holds a snapshot of the store. */
  readonly streams: ListStreams;
  readonly account: Account;
  readonly writable: boolean;
  readonly request: FastifyRequest;
  readonly reply: FastifyReply;
}

export const XML_CONTENT_TYPE = 'application/xml; charset=utf-8';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** The request body as text: bytes as sent, no content coding, valid UTF-8, else 415 or 400. */
export function bodyText(request: FastifyRequest): string {
  const encoding = (request.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding !== 'identity' && encoding !== '')
    throw new DavError(415, `a CalDAV body is sent without a content coding (not ${encoding})`);
  const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
  try {
    return strictUtf8.decode(raw);
  } catch {
    throw DavError.badRequest('the body is not UTF-8');
  }
}

/** Sends a whole XML document. */
export function sendXml(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).header('content-type', XML_CONTENT_TYPE).send(body);
}

/** Answers up to this size are made whole and sent at once; larger ones stream. */
const WHOLE_ANSWER_CHARS = 256 * 1024;

/** Chunks of a streamed answer: few writes, little held at once. */
const STREAM_CHUNK_CHARS = 64 * 1024;

/**
 * Sends a multistatus whose responses are made while it is sent. A small answer is made whole and
 * sent as one string; a large one (a collection of 100,000 tasks) streams in bounded memory, one
 * batch of the store at a time, and a client that goes away ends the reading (the generator's
 * `finally` closes the store's snapshot).
 */
export async function sendMultistatus(
  context: DavContext,
  root: QName,
  responses: AsyncIterator<Markup>,
): Promise<FastifyReply> {
  const { reply, streams, account } = context;
  let head = documentStart(root);
  for (;;) {
    const next = await responses.next();
    if (next.done === true) {
      return reply
        .code(207)
        .header('content-type', XML_CONTENT_TYPE)
        .send(`${head}${documentEnd(root)}`);
    }
    head += next.value.xml;
    if (head.length >= WHOLE_ANSWER_CHARS) break;
  }
  // A stream holds a snapshot of the store until it ends: it needs one of the slots /v1's lists use.
  if (!streams.admit(account.id)) {
    await responses.return?.();
    throw new DavError(503, 'too many large answers are being sent: try again in a moment', undefined, {
      'retry-after': '1',
    });
  }
  let pulled = (): void => undefined;
  async function* rest(): AsyncGenerator<string> {
    let chunk = head;
    for (;;) {
      pulled();
      const next = await responses.next();
      if (next.done === true) break;
      chunk += next.value.xml;
      if (chunk.length >= STREAM_CHUNK_CHARS) {
        yield chunk;
        chunk = '';
      }
    }
    yield `${chunk}${documentEnd(root)}`;
  }
  const stream = Readable.from(rest(), { objectMode: false });
  ({ pulled } = streams.watch(account.id, stream));
  // A client gone before the end: the generator's `finally` blocks close what it holds.
  stream.once('close', () => void responses.return?.());
  return reply.code(207).header('content-type', XML_CONTENT_TYPE).send(stream);
}
