import pg from 'pg';
import { StoreUnavailableError } from '../../domain/errors.js';

/**
 * SQLSTATE codes and classes that mean "the database cannot serve us right now", as opposed to a
 * mistake in our statement or data. Retrying later can succeed, so the HTTP layer answers E503.
 */
const UNAVAILABLE_SQLSTATE_CLASSES = [
  '08', // connection exception
  '53', // insufficient resources: too many connections, out of memory, disk full
];
const UNAVAILABLE_SQLSTATES = new Set([
  '57P01', // admin_shutdown: the server is stopping
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: the server is starting up or in recovery
  '57014', // query_canceled: statement_timeout hit, which means the database is overloaded
  '55P03', // lock_not_available
  '40001', // serialization_failure
  '40P01', // deadlock_detected
]);

/** Socket-level failures reported by Node while connecting or talking to the server. */
const UNAVAILABLE_NODE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * Errors that pg and pg-pool raise as plain `Error`s without a code: a dropped connection, a
 * client left unusable by one, or waiting too long for a pooled connection.
 */
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'Client has encountered a connection error and is not queryable',
  'timeout exceeded when trying to connect',
  'timeout expired',
  'Query read timeout',
];

function codeOf(error: object): string | undefined {
  const code: unknown = Reflect.get(error, 'code');
  return typeof code === 'string' ? code : undefined;
}

/** True when the error says the database is unreachable, shutting down or overloaded. */
export function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error instanceof StoreUnavailableError) return true;
  const code = codeOf(error);
  if (error instanceof pg.DatabaseError) {
    if (code === undefined) return false;
    return UNAVAILABLE_SQLSTATES.has(code) || UNAVAILABLE_SQLSTATE_CLASSES.includes(code.slice(0, 2));
  }
  if (code !== undefined && UNAVAILABLE_NODE_CODES.has(code)) return true;
  // Node reports a refused connection to a name with several addresses as an AggregateError.
  if (error instanceof AggregateError) return error.errors.some(isUnavailable);
  return UNAVAILABLE_MESSAGES.some((message) => error.message.startsWith(message));
}

/** The error to hand to callers: outages become StoreUnavailableError, anything else is kept. */
export function translateError(error: unknown): unknown {
  return isUnavailable(error) && !(error instanceof StoreUnavailableError) ? new StoreUnavailableError(error) : error;
}

/** Runs a store operation, turning outages into StoreUnavailableError. */
export async function guarded<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw translateError(error);
  }
}

/** SQLSTATE 23505: a unique constraint refused the row; `constraint` names which one. */
export function isUniqueViolation(error: unknown, constraint: string): boolean {
  return error instanceof pg.DatabaseError && error.code === '23505' && error.constraint === constraint;
}

/** A write or list for an account id that does not exist: a bug in the caller, not a client error. */
export class NoSuchAccountError extends Error {
  constructor(readonly accountId: number) {
    super(`no such account: ${accountId}`);
    this.name = 'NoSuchAccountError';
  }
}
