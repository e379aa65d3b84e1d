import { pipeline, Readable } from 'node:stream';
import { constants, createGzip, gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Answers smaller than this stay plain: gzip would cost more time than the bytes it saves. */
const COMPRESS_THRESHOLD_BYTES = 1024;

/** Level 1: for JSON about 3× faster than the default level for a size about 10% larger. */
const GZIP_OPTIONS = { level: 1, memLevel: 9, strategy: constants.Z_DEFAULT_STRATEGY } as const;

/** Whether `Accept-Encoding` allows gzip: named (or `*`) with a quality above zero. */
export function acceptsGzip(header: string | undefined): boolean {
  if (header === undefined) return false;
  let wildcard = false;
  for (const part of header.split(',')) {
    const [coding = '', ...params] = part.split(';').map((piece) => piece.trim().toLowerCase());
    const quality = params.find((param) => param.startsWith('q='));
    const allowed = quality === undefined || Number(quality.slice(2)) > 0;
    if (coding === 'gzip' || coding === 'x-gzip') return allowed;
    if (coding === '*') wildcard = allowed;
  }
  return wildcard;
}

/**
 * Whether to send an answer of this size gzip-compressed. For text, its length in characters
 * stands for its size: a short text of many-byte characters may stay plain, as the contract allows.
 */
export function wantsGzip(request: FastifyRequest, size: number): boolean {
  return size >= COMPRESS_THRESHOLD_BYTES && acceptsGzip(request.headers['accept-encoding']);
}

export function gzipAnswer(body: string | Buffer): Buffer {
  return gzipSync(body, GZIP_OPTIONS);
}

/** Labels a reply whose payload is already gzip-compressed. */
export function markGzipped(reply: FastifyReply): void {
  void reply.header('content-encoding', 'gzip').header('vary', 'accept-encoding');
}

/**
 * Compresses answers for clients that accept gzip: a rendered string in one call, a streamed
 * list through a gzip stream, so large answers stay streamed. Buffers are sent as they are
 * (already compressed by whoever made them).
 */
export function registerCompression(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (typeof payload === 'string') {
      if (!wantsGzip(request, payload.length)) return payload;
      markGzipped(reply);
      return gzipAnswer(payload);
    }
    if (payload instanceof Readable && acceptsGzip(request.headers['accept-encoding'])) {
      markGzipped(reply);
      reply.removeHeader('content-length');
      // pipeline, not pipe: a failing list stream must end the gzip stream (and the answer) too.
      return pipeline(payload, createGzip(GZIP_OPTIONS), () => undefined);
    }
    return payload;
  });
}
