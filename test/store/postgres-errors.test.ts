import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { DomainError, invalid } from '../../src/domain/errors.js';
import { isUnavailable, translateError } from '../../src/store/postgres/errors.js';
import { StoreUnavailableError } from '../../src/domain/errors.js';

/** A server error as pg reports it, with the given SQLSTATE. */
function serverError(code: string): pg.DatabaseError {
  const error = new pg.DatabaseError(`server said ${code}`, 0, 'error');
  error.code = code;
  return error;
}

function nodeError(code: string): Error {
  return Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code });
}

describe('which PostgreSQL errors mean "unavailable"', () => {
  it.each([
    ['57P01', 'admin shutdown'],
    ['57P02', 'crash shutdown'],
    ['57P03', 'cannot connect now'],
    ['53300', 'too many connections'],
    ['53200', 'out of memory'],
    ['08006', 'connection failure'],
    ['57014', 'statement timeout'],
  ])('server error %s (%s)', (code) => {
    expect(isUnavailable(serverError(code))).toBe(true);
  });

  it.each(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH'])('socket error %s', (code) => {
    expect(isUnavailable(nodeError(code))).toBe(true);
  });

  it.each([
    'Connection terminated unexpectedly',
    'Connection terminated due to connection timeout',
    'timeout exceeded when trying to connect',
    'Client has encountered a connection error and is not queryable',
    'Query read timeout',
  ])('driver error "%s"', (message) => {
    expect(isUnavailable(new Error(message))).toBe(true);
  });

  it('a refused connection to every address of a host name', () => {
    expect(isUnavailable(new AggregateError([nodeError('ECONNREFUSED'), nodeError('ECONNREFUSED')]))).toBe(true);
  });

  it.each(['23505', '23503', '42P01', '22P02'])('not server error %s (a bug or bad data)', (code) => {
    expect(isUnavailable(serverError(code))).toBe(false);
  });

  it('not errors of the caller', () => {
    expect(isUnavailable(new Error('work failed'))).toBe(false);
    expect(isUnavailable(invalid('name'))).toBe(false);
    expect(isUnavailable('a string')).toBe(false);
  });

  it('translates only outages, keeping the cause', () => {
    const outage = serverError('57P01');
    const translated = translateError(outage);
    expect(translated).toBeInstanceOf(StoreUnavailableError);
    expect(translated).toMatchObject({ cause: outage });
    const unavailable = new StoreUnavailableError(outage);
    expect(translateError(unavailable)).toBe(unavailable);
    const domain = invalid('title');
    expect(translateError(domain)).toBe(domain);
    expect(domain).toBeInstanceOf(DomainError);
  });
});
