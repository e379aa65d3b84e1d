/** Text columns of the account and OAuth tables, read alike by both engines. */
import type { Scope } from '../domain/account.js';

/** The schema's CHECK keeps scope columns valid; this narrows the type without a cast. */
export function scopeOf(value: string): Scope {
  if (value === 'read' || value === 'write') return value;
  throw new Error(`a scope column holds an unknown value: ${value}`);
}

/** The registered redirect URIs, kept as a JSON array of strings. */
export function redirectUrisOf(json: string): readonly string[] {
  const parsed: unknown = JSON.parse(json);
  if (!Array.isArray(parsed) || !parsed.every((uri): uri is string => typeof uri === 'string')) {
    throw new Error('oauth_clients.redirect_uris is not a JSON array of strings');
  }
  return parsed;
}
