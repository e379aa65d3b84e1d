import type { z } from 'zod';
import { WireError } from '../wire/errors.js';

/** The first schema violation as the contract's E004, naming the field (`tags`, `title`). */
export function firstIssue(error: z.ZodError): WireError {
  const issue = error.issues[0];
  const field = issue?.path.find((part): part is string => typeof part === 'string') ?? 'body';
  const reason = issue?.code === 'invalid_type' ? `expected ${String(issue.expected)}` : issue?.message;
  return WireError.invalidParameter(field, reason);
}
