import { gunzipSync } from 'node:zlib';
import type { FastifyRequest } from 'fastify';
import { WireError } from './wire/errors.js';

/** Request bodies may be at most this large, after gunzip (contract section 7). */
export const BODY_LIMIT_BYTES = 1024 * 1024;

const JSON_CONTENT_TYPE = /^application\/json\s*(;\s*charset\s*=\s*"?utf-8"?\s*)?$/i;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
const lenientUtf8 = new TextDecoder('utf-8');

declare module 'fastify' {
  interface FastifyRequest {
    /** The body as text, once read: what an error's `reqdata` echoes. */
    bodyText: string;
  }
}

/**
 * Reads a POST body the way the contract wants: JSON content type (else E005), gzip undone when
 * declared (broken stream E001, too large E006), strict UTF-8 and JSON (else E001). The body text
 * is kept first, so that every error can echo it.
 */
export function readJsonBody(request: FastifyRequest): unknown {
  const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
  const encoding = (request.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  let bytes = raw;
  let decodeError: WireError | undefined;
  if (encoding === 'gzip' || encoding === 'x-gzip') {
    try {
      bytes = gunzipWithin(raw);
    } catch (error) {
      decodeError = error instanceof WireError ? error : WireError.unparsableJson();
      bytes = Buffer.alloc(0);
    }
  } else if (encoding !== 'identity' && encoding !== '') {
    decodeError = WireError.unparsableJson();
  }

  let text: string | undefined;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    text = undefined;
  }
  request.bodyText = text ?? lenientUtf8.decode(bytes);

  const contentType = request.headers['content-type'];
  if (contentType === undefined || !JSON_CONTENT_TYPE.test(contentType.trim())) throw WireError.contentType();
  if (decodeError !== undefined) throw decodeError;
  if (text === undefined || text.trim() === '') throw WireError.unparsableJson();
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
