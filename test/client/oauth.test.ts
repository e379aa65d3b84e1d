/**
 * The SDK's OAuth helpers without a server: the PKCE pair (its S256 challenge checked with node's
 * own SHA-256), the authorization address, and reading the redirect's answer. The flow against a
 * real server is test/e2e/terminal-client.test.ts.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { authorizationUrl, codeFromRedirect, makePkce, makeState, OAuthRefusal } from '../../src/client/index.js';

describe('the SDK OAuth helpers', () => {
  it('makes a fresh 43-character verifier and its S256 challenge', async () => {
    const pair = await makePkce();
    expect(pair.verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(pair.challenge).toBe(createHash('sha256').update(pair.verifier).digest('base64url'));
    expect((await makePkce()).verifier).not.toBe(pair.verifier);
    expect(makeState()).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(makeState()).not.toBe(makeState());
  });

  it('sends the person to /oauth/authorize with every parameter of a code + PKCE request', () => {
    const address = new URL(
      authorizationUrl('https://tasks.example/', {
        clientId: 'c1',
        redirectUri: 'http://127.0.0.1:5000/callback',
        state: 's&1',
        challenge: 'ch',
      }),
    );
    expect(`${address.origin}${address.pathname}`).toBe('https://tasks.example/oauth/authorize');
    expect(Object.fromEntries(address.searchParams)).toEqual({
      response_type: 'code',
      client_id: 'c1',
      redirect_uri: 'http://127.0.0.1:5000/callback',
      state: 's&1',
      scope: 'write',
      code_challenge: 'ch',
      code_challenge_method: 'S256',
    });
  });

  it("reads the code from the redirect only when the state is this request's", () => {
    const back = (query: string) => new URL(`http://127.0.0.1:5000/callback?${query}`);
    expect(codeFromRedirect(back('code=abc&state=s1'), 's1')).toBe('abc');
    const refusal = (query: string): unknown => {
      try {
        codeFromRedirect(back(query), 's1');
      } catch (error) {
        return error;
      }
      return undefined;
    };
    expect(refusal('code=abc&state=other')).toMatchObject({ code: 'state_mismatch' });
    expect(refusal('code=abc')).toMatchObject({ code: 'state_mismatch' });
    // An error for another request is a state mismatch too: nothing of it is believed.
    expect(refusal('error=access_denied&state=other')).toMatchObject({ code: 'state_mismatch' });
    expect(refusal('error=access_denied&error_description=no&state=s1')).toMatchObject({
      code: 'access_denied',
      description: 'no',
    });
    expect(refusal('state=s1')).toBeInstanceOf(OAuthRefusal);
  });
});
