import type { FastifyRequest } from 'fastify';

/** Form or query fields, each a single string; a field sent twice counts as not sent at all. */
export type Fields = Readonly<Record<string, string | undefined>>;

/** The fields of a parsed form body or query (`@fastify/formbody`, fastify's query parser). */
export function fieldsOf(parsed: unknown): Fields {
  const fields: Record<string, string | undefined> = {};
  if (typeof parsed !== 'object' || parsed === null || Buffer.isBuffer(parsed)) return fields;
  for (const [name, value] of Object.entries(parsed)) {
    // RFC 6749 section 3.1: parameters must not be repeated; a repeated one is ignored whole.
    if (typeof value === 'string') fields[name] = value;
  }
  return fields;
}

/** A base no request names: a path resolved against it and still on it is a path of this server. */
const LOCAL_BASE = 'http://local.invalid';

/**
 * A path on this server to go to after signing in: only a local absolute path, never `//host`
 * or `/\host` (which browsers read as another site), never a control character. It is returned
 * as the URL parser writes it, percent-encoded, so that it fits in a `Location` header (a raw
 * U+2215 there threw after the session was made: issue 21).
 */
export function localPath(next: string | undefined, fallback: string): string {
  if (next === undefined || !/^\/(?![/\\])/.test(next)) return fallback;
  const hasControl = [...next].some((char) => char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f);
  if (hasControl) return fallback;
  const url = new URL(next, LOCAL_BASE);
  if (url.origin !== LOCAL_BASE) return fallback;
  return `${url.pathname}${url.search}${url.hash}`;
}

/**
 * The second guard against cross-site forms, besides the CSRF token: a browser's `Origin` (and
 * `Sec-Fetch-Site`) must name this site, its whole origin (scheme, host and port: a page served
 * over plain HTTP on the same host is another site). Without either header, the token alone decides.
 */
export function comesFromThisSite(request: FastifyRequest): boolean {
  if (request.headers['sec-fetch-site'] === 'cross-site') return false;
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  try {
    return new URL(origin).origin === new URL(originOf(request)).origin;
  } catch {
    return false;
  }
}

/**
 * `scheme://host` of this server as the request reached it, for the metadata's URLs: behind a
 * proxy named by `--trust-proxy`, as the proxy says the client reached it.
 */
export function originOf(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}
