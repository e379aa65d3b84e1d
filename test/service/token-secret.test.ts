import { describe, expect, it } from 'vitest';
import { newTokenSecret } from '../../src/service/ids.js';

describe('new token secrets', () => {
  // One base64url draw in 64 starts with "-", which a command line reads as an option
  // (`token revoke <token>`): 5000 draws would hold about 78 of them.
  it('never start with "-" and stay 256 bits of URL-safe base64', () => {
    const tokens = Array.from({ length: 5000 }, () => newTokenSecret());
    expect(tokens.filter((token) => token.startsWith('-'))).toEqual([]);
    for (const token of tokens) expect(token).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{42}$/);
    expect(new Set(tokens).size).toBe(tokens.length);
  });
});
