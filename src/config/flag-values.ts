import { ConfigError } from './config-error.js';

export function wholeNumber(text: string, what: string, min: number, max: number): number {
  if (!/^\d+$/.test(text)) throw new ConfigError(`${what} must be a whole number from ${min} to ${max}, got "${text}"`);
  const value = Number(text);
  if (value < min || value > max) throw new ConfigError(`${what} must be from ${min} to ${max}, got ${text}`);
  return value;
}

/** `--rate-limit 20/s` (or a bare `20`): requests per second per token. */
export function rateLimit(text: string | undefined): number | null {
  if (text === undefined || text === '' || text === 'off') return null;
  const match = /^(\d+)(?:\/s)?$/.exec(text);
  if (match?.[1] === undefined) throw new ConfigError(`--rate-limit must look like 20/s, got "${text}"`);
  return wholeNumber(match[1], '--rate-limit', 1, 1_000_000);
}

/** A boolean environment variable is set when it reads 1, true, yes or on (any case). */
export function truthy(text: string | undefined): boolean {
  return text !== undefined && /^(1|true|yes|on)$/i.test(text);
}

export function oneOf<T extends string>(text: string, allowed: readonly T[], what: string): T {
  const found = allowed.find((candidate) => candidate === text);
  if (found === undefined) throw new ConfigError(`${what} must be one of ${allowed.join(', ')}, got "${text}"`);
  return found;
}
