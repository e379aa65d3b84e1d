import type { FastifyRequest } from 'fastify';
import { WireError } from './wire/errors.js';

/** The raw query string as received (without `?`): what an error's `reqdata` echoes for a GET. */
export function rawQuery(request: FastifyRequest): string {
  const url = request.raw.url ?? '';
  const mark = url.indexOf('?');
  return mark === -1 ? '' : url.slice(mark + 1);
}

/** The path part of the request URL, never the query (which may carry `access_token`). */
export function rawPath(request: FastifyRequest): string {
  const url = request.raw.url ?? '';
  const mark = url.indexOf('?');
  return mark === -1 ? url : url.slice(0, mark);
}

/**
 * The query parameters a route accepts, each at most once. `access_token` is the credential and
 * allowed everywhere. An unknown name is E003, a repeated one E004.
 */
export function readQuery<Name extends string>(
  request: FastifyRequest,
  accepted: readonly Name[],
): Partial<Record<Name, string>> {
  const values: Partial<Record<Name, string>> = {};
  const seen = new Set<string>();
  let params: URLSearchParams;
  try {
    // URLSearchParams reads an unencoded `+` as a space, which the date parser then accepts.
    params = new URLSearchParams(rawQuery(request));
  } catch {
    throw WireError.invalidParameter('query');
  }
  for (const [name, value] of params) {
    if (seen.has(name)) throw WireError.invalidParameter(name, 'given more than once');
    seen.add(name);
    if (name === 'access_token') continue;
    const known = accepted.find((candidate) => candidate === name);
    if (known === undefined) throw WireError.unsupportedParameter(name);
    values[known] = value;
  }
  return values;
}
