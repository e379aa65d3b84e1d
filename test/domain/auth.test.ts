import { describe, expect, it } from 'vitest';
import {
  redirectUriRefusal,
  parseScope,
  redirectUriMatches,
  refusedUntil,
  scopeCovers,
} from '../../src/domain/auth.js';
import { redirectWith } from '../../src/domain/oauth.js';

describe('redirect URI matching (ACCOUNTS.md section 3)', () => {
  const registered = [
    'https://app.example/cb',
    'http://127.0.0.1/native',
    'http://[::1]:8080/v6',
    'com.example.app:/cb',
  ];

  it('matches character for character', () => {
    expect(redirectUriMatches(registered, 'https://app.example/cb')).toBe(true);
    expect(redirectUriMatches(registered, 'com.example.app:/cb')).toBe(true);
    for (const uri of [
      'https://app.example/cb/',
      'https://app.example/CB',
      'https://app.example/cb?x',
      'https://app.example:443/cb',
      'http://app.example/cb',
    ]) {
      expect(redirectUriMatches(registered, uri), uri).toBe(false);
    }
  });

  it('matches a loopback URI on any port, and only on the same host and path', () => {
    expect(redirectUriMatches(registered, 'http://127.0.0.1:53123/native')).toBe(true);
    expect(redirectUriMatches(registered, 'http://[::1]:1/v6')).toBe(true);
    expect(redirectUriMatches(registered, 'http://[::1]/v6')).toBe(true);
    expect(redirectUriMatches(registered, 'http://127.0.0.1:53123/other')).toBe(false);
    expect(redirectUriMatches(registered, 'http://[::1]:53123/native')).toBe(false);
    expect(redirectUriMatches(registered, 'http://localhost:53123/native')).toBe(false);
    expect(redirectUriMatches(registered, 'https://127.0.0.1:53123/native')).toBe(false);
    expect(redirectUriMatches(registered, 'http://127.0.0.1:53123/native@evil.example')).toBe(false);
  });

  it('registers https, loopback http and private-use schemes of RFC 8252 only (ACCOUNTS.md 2)', () => {
    for (const uri of [
      'https://a.example/cb',
      'com.example.app:/cb',
      'http://127.0.0.1/cb',
      'http://127.0.0.1:8080/cb',
      'http://[::1]/cb',
      'http://localhost:3000/cb',
    ])
      expect(redirectUriRefusal(uri), uri).toBeUndefined();
    expect(redirectUriRefusal('/cb')).toBe('not an absolute URI');
    expect(redirectUriRefusal('https://a.example/cb#x')).toBe('a redirect URI has no fragment');
    // Issue 21 item 6: a script, data, a file, plain HTTP to another host, a scheme that is no domain.
    for (const uri of [
      'javascript:alert(1)',
      'JavaScript://x/%0aalert(1)',
      'data:text/html,<script>x</script>',
      'file:///etc/passwd',
      'http://app.example/cb',
      'myapp:/cb',
      'vbscript:x',
    ])
      expect(redirectUriRefusal(uri), uri).toBe(
        'a redirect URI is https:, http: on a loopback address (127.0.0.1, [::1], localhost), ' +
          'or a private-use scheme of RFC 8252 named by a reverse domain name (com.example.app:/cb)',
      );
  });
});

describe('scopes', () => {
  it('reads empty or missing as write, several words as the widest, anything else as invalid', () => {
    expect(parseScope(undefined)).toBe('write');
    expect(parseScope('')).toBe('write');
    expect(parseScope('read')).toBe('read');
    expect(parseScope('read write')).toBe('write');
    expect(parseScope('admin')).toBeUndefined();
    expect(parseScope('read admin')).toBeUndefined();
  });

  it('a write grant covers read; a read grant does not cover write', () => {
    expect(scopeCovers('write', 'read')).toBe(true);
    expect(scopeCovers('read', 'read')).toBe(true);
    expect(scopeCovers('read', 'write')).toBe(false);
  });
});

describe('the sign-in throttle', () => {
  it('refuses from the limit on, for a delay that doubles and stops at 15 minutes', () => {
    expect(refusedUntil({ count: 4, last: 1_000 }, 5)).toBeNull();
    expect(refusedUntil({ count: 5, last: 1_000 }, 5)).toBe(1_000 + 1_000_000);
    expect(refusedUntil({ count: 7, last: 1_000 }, 5)).toBe(1_000 + 4_000_000);
    expect(refusedUntil({ count: 500, last: 1_000 }, 5)).toBe(1_000 + 900_000_000);
  });
});

describe('redirect answers', () => {
  it('puts the token first in the fragment, as the original clients parse it', () => {
    const location = redirectWith('https://a.example/r', true, {
      access_token: 'abc',
      token_type: 'bearer',
      scope: 'write',
      state: 'x y',
    });
    expect(location).toBe('https://a.example/r#access_token=abc&token_type=bearer&scope=write&state=x+y');
    expect(location.split('access_token=')[1]?.split('&')[0]).toBe('abc');
  });

  it('adds to an existing query, and leaves out what is undefined', () => {
    expect(redirectWith('https://a.example/r?k=1', false, { code: 'c', state: undefined })).toBe(
      'https://a.example/r?k=1&code=c',
    );
  });
});
