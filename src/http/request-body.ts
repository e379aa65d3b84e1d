import { gunzipSync } from 'node:zlib';
import type { FastifyRequest } from 'fastify';
import { WireError } from './wire/errors.js';

/** Request bodies may be at most this large, after gunzip (contract section 7). */
export const BODY_LIMIT_BYTES = 1024 * 1024;

const JSON_CONTENT_TYPE = /^application\/json\s*(;\s*charset\s*=\s*"?utf-8"?\s*)?$/i;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
const lenientUtf8 = new TextDecoder('utf-8');

/** A POST body with its transfer encoding undone and read as UTF-8. */
interface DecodedBody {
  /** The text, invalid UTF-8 replaced by U+FFFD: what an error's `reqdata` echoes. */
  readonly text: string;
  /** True when the bytes were valid UTF-8 (so `text` is exactly what was sent). */
  readonly validUtf8: boolean;
  /** Why the bytes could not be decoded: broken gzip or unknown encoding (E001), too large (E006). */
  readonly failure: WireError | undefined;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The body once decoded (null until needed): an error echoes it even before the route reads it. */
    decodedBody: DecodedBody | null;
  }
}

/** Gzip undone when declared, then UTF-8 read; a failure is kept for the route to report in order. */
function decodeBody(request: FastifyRequest): DecodedBody {
  const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
  const encoding = (request.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  let bytes = raw;
  let failure: WireError | undefined;
  if (encoding === 'gzip' || encoding === 'x-gzip') {
    try {
      bytes = gunzipWithin(raw);
    } catch (error) {
      failure = error instanceof WireError ? error : WireError.unparsableJson();
      bytes = Buffer.alloc(0);
    }
  } else if (encoding !== 'identity' && encoding !== '') {
    failure = WireError.unparsableJson();
  }
  try {
    return { text: strictUtf8.decode(bytes), validUtf8: true, failure };
  } catch {
    return { text: lenientUtf8.decode(bytes), validUtf8: false, failure };
  }
}

/** The body of a POST as text, decoded once per request: what an error's `reqdata` echoes. */
export function bodyTextOf(request: FastifyRequest): string {
  request.decodedBody ??= decodeBody(request);
  return request.decodedBody.text;
}

/**
 * The body an error's `reqdata` echoes. A gzip body is undone only for a request that got past
 * the token check (or whose route already undid it): gunzipping up to 1 MiB for anyone, only to
 * echo it in a refusal, would be free work for a client without a token. Its echo is then empty.
 */
export function bodyEchoOf(request: FastifyRequest): string {
  if (request.decodedBody === null && request.grant === null && isGzipped(request)) return '';
  return bodyTextOf(request);
}

function isGzipped(request: FastifyRequest): boolean {
  const encoding = (request.headers['content-encoding'] ?? '').trim().toLowerCase();
  return encoding === 'gzip' || encoding === 'x-gzip';
}

/**
 * Reads a POST body the way the contract wants: JSON content type (else E005), gzip undone when
 * declared (broken stream E001, too large E006), strict UTF-8 and JSON (else E001).
 */
export function readJsonBody(request: FastifyRequest): unknown {
  request.decodedBody ??= decodeBody(request);
  const { text, validUtf8, failure } = request.decodedBody;
  const contentType = request.headers['content-type'];
  if (contentType === undefined || !JSON_CONTENT_TYPE.test(contentType.trim())) throw WireError.contentType();
  if (failure !== undefined) throw failure;
  if (!validUtf8 || text.trim() === '') throw WireError.unparsableJson();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw WireError.unparsableJson();
  }
}

function gunzipWithin(compressed: Buffer): Buffer {
  try {
    return gunzipSync(compressed, { maxOutputLength: BODY_LIMIT_BYTES });
  } catch (error) {
    if (error instanceof RangeError) throw WireError.bodyTooLarge();
    throw WireError.unparsableJson();
  }
}
