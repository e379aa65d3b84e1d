import { describe, expect, it } from 'vitest';
import { accountNamedBy } from '../../src/domain/secret-key.js';
import { routedHexSecret, routedSecret, secretKeyOf } from '../../src/service/secrets.js';

describe('secrets made for an account', () => {
  // A token that started with "-" would be read as an option by a command line (`token revoke
  // <token>`); unprefixed base64url starts with it once in 64 draws.
  it('begin with the account in hex, never "-", then 256 random bits of URL-safe base64', () => {
    const secrets = Array.from({ length: 2000 }, () => routedSecret(42));
    for (const secret of secrets) expect(secret).toMatch(/^000000000000002a[A-Za-z0-9_-]{43}$/);
    expect(new Set(secrets).size).toBe(secrets.length);
    expect(accountNamedBy(routedSecret(Number.MAX_SAFE_INTEGER))).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('keep the 64 lowercase hex the original clients parse, naming the account', () => {
    const secrets = Array.from({ length: 2000 }, () => routedHexSecret(7));
    for (const secret of secrets) expect(secret).toMatch(/^0000000000000007[0-9a-f]{48}$/);
    expect(new Set(secrets).size).toBe(secrets.length);
    expect(secretKeyOf(secrets[0] ?? '').accountId).toBe(7);
  });

  it('are refused for what is no account id', () => {
    for (const id of [0, -1, 1.5, 2 ** 53]) expect(() => routedSecret(id)).toThrow(RangeError);
  });
});

describe('the account a presented secret names', () => {
  it('is none for a secret made before migration 7 or anything else that does not begin with it', () => {
    // Older tokens: 43 characters of base64url, or 64 random hex whose first 16 digits are a
    // number beyond 2^53 (all but one in 2048 of them).
    expect(accountNamedBy('Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5')).toBeNull();
    expect(accountNamedBy(`ffffffffffffffff${'0'.repeat(48)}`)).toBeNull();
    expect(accountNamedBy('0'.repeat(64))).toBeNull();
    expect(accountNamedBy('')).toBeNull();
    expect(secretKeyOf('x').accountId).toBeNull();
  });
});
