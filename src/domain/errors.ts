/** The kinds of record an account owns; names as they appear in messages (`not found: task x`). */
export type RecordKind = 'task' | 'project' | 'context';

/** Why a use case refused a request. The HTTP layer maps each kind to its retcode. */
export type Problem =
  | { readonly kind: 'invalid'; readonly field: string; readonly reason?: string }
  | { readonly kind: 'not_found'; readonly record: RecordKind; readonly id: string }
  | { readonly kind: 'conflict'; readonly record: RecordKind; readonly id: string }
  | { readonly kind: 'cursor_expired' };

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
