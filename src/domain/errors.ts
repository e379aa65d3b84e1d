import type { SyncKind } from './sync.js';

/** Why a use case refused a request. The HTTP layer maps each kind to its retcode. */
export type Problem =
  | { readonly kind: 'invalid'; readonly field: string; readonly reason?: string }
  | { readonly kind: 'not_found'; readonly record: SyncKind; readonly id: string }
  | { readonly kind: 'conflict'; readonly record: SyncKind; readonly id: string }
  | { readonly kind: 'cursor_expired' }
  /** A retry key sent again with a different request. */
  | { readonly kind: 'key_reused' }
  /** The write would take the account past what it may store (domain/storage-quota.ts). */
  | { readonly kind: 'storage_full'; readonly measure: 'records' | 'bytes'; readonly max: number };

export class DomainError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.kind);
    this.name = 'DomainError';
  }
}

export function invalid(field: string, reason?: string): DomainError {
  return new DomainError(reason === undefined ? { kind: 'invalid', field } : { kind: 'invalid', field, reason });
}

/** The same problem, its field name prefixed with the position in an array request (`[3].title`). */
export function atIndex(error: DomainError, index: number): DomainError {
  const { problem } = error;
  if (problem.kind !== 'invalid') return error;
  return new DomainError({ ...problem, field: `[${index}].${problem.field}` });
}

/** The store cannot be reached or is shutting down; the request may be retried later. */
export class StoreUnavailableError extends Error {
  constructor(cause: unknown) {
    super('store unavailable', { cause });
    this.name = 'StoreUnavailableError';
  }
}

/** A username that is already taken (the one uniqueness rule that spans accounts). */
export class UsernameTakenError extends Error {
  constructor(readonly username: string) {
    super(`username taken: ${username}`);
    this.name = 'UsernameTakenError';
  }
}
