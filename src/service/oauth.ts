import type { Account, Scope } from '../domain/account.js';
import {
  CLIENT_ID_PATTERN,
  CODE_LIFETIME_MICROS,
  FAILURES_PER_ADDRESS,
  parseScope,
  PKCE_VALUE,
  redirectUriMatches,
  refusedUntil,
  scopeCovers,
  THROTTLE_WINDOW_MICROS,
  type OAuthClient,
} from '../domain/auth.js';
import {
  OAuthError,
  redirectWith,
  type AuthorizeCheck,
  type AuthorizeParams,
  type AuthorizeRequest,
  type TokenAnswer,
} from '../domain/oauth.js';
import { MICROS_PER_SECOND, type Clock, type Micros } from '../domain/time.js';
import type { Store } from '../store/store.js';
import { hashSecret, routedHexSecret, routedSecret, s256, sameHash, secretKeyOf } from './secrets.js';

/** Access tokens from the token endpoint live a day; the refresh token makes the next one. */
const ACCESS_TOKEN_LIFETIME_SECONDS = 86_400;

/** The form fields of the token and revocation endpoints, and the client's HTTP Basic credentials. */
export interface TokenRequest {
  readonly form: Readonly<Record<string, string | undefined>>;
  readonly basic: { readonly clientId: string; readonly secret: string } | undefined;
  readonly address: string;
}

const tokenEndpointKey = (address: string): string => `token:${address}`;

/**
 * The OAuth 2 authorization server of ACCOUNTS.md section 3: the legacy implicit and code flows of
 * the original clients, and code + PKCE (S256 only) for today's; exact redirect matching,
 * single-use codes bound to client, redirect URI and challenge.
 */
export class OAuthService {
  constructor(
    private readonly store: Store,
    private readonly now: Clock,
  ) {}

  /** Checks an authorization request in RFC 6749's order: client and redirect URI first. */
  async checkAuthorize(params: AuthorizeParams): Promise<AuthorizeCheck> {
    const clientId = params.client_id ?? '';
    const client = CLIENT_ID_PATTERN.test(clientId) ? await this.store.auth.findClient(clientId) : undefined;
    if (client === undefined) return { kind: 'error_page', message: 'unknown client' };
    const redirectUri = this.#redirectUriOf(client, params.redirect_uri);
    if (redirectUri === undefined)
      return { kind: 'error_page', message: 'the redirect_uri is not one registered for this client' };

    const state = params.state;
    const responseType = params.response_type;
    const refuse = (error: string, description: string, inFragment: boolean): AuthorizeCheck => ({
      kind: 'redirect',
      location: redirectWith(redirectUri, inFragment, { error, error_description: description, state }),
    });
    if (responseType !== 'code' && responseType !== 'token') {
      return refuse('unsupported_response_type', 'response_type must be code or token', false);
    }
    const inFragment = responseType === 'token';
    if (responseType === 'token' && !client.legacyImplicit) {
      return refuse('unauthorized_client', 'this client may not use the implicit flow', true);
    }
    const scope = parseScope(params.scope);
    if (scope === undefined) return refuse('invalid_scope', 'scope must be read or write', inFragment);

    let challenge: string | undefined;
    if (responseType === 'code') {
      const method = params.code_challenge_method;
      challenge = params.code_challenge;
      if (challenge === undefined || challenge === '') {
        if (client.secretHash === null)
          return refuse('invalid_request', 'a public client must send a code_challenge (S256)', false);
        challenge = undefined;
        if (method !== undefined)
          return refuse('invalid_request', 'code_challenge_method without code_challenge', false);
      } else {
        if (method !== 'S256') return refuse('invalid_request', 'code_challenge_method must be S256', false);
        if (!PKCE_VALUE.test(challenge))
          return refuse('invalid_request', 'code_challenge is not a valid S256 challenge', false);
      }
    }
    return { kind: 'ok', request: { client, responseType, redirectUri, scope, state, challenge } };
  }

  /** Whether the account must be asked: it never allowed this client, or allowed less. */
  async needsConsent(account: Account, request: AuthorizeRequest): Promise<boolean> {
    const held = await this.store.auth.findConsent(account.id, request.client.id);
    return held === undefined || !scopeCovers(held, request.scope);
  }

  /** The account allowed the request: remembers it and answers with a code or a token. */
  async approve(account: Account, request: AuthorizeRequest): Promise<string> {
    const at = this.now();
    const held = await this.store.auth.findConsent(account.id, request.client.id);
    const kept: Scope = held !== undefined && scopeCovers(held, request.scope) ? held : request.scope;
    await this.store.auth.saveConsent(account.id, request.client.id, kept, at);
    if (request.responseType === 'token') {
      // 64 lowercase hex, the form the original clients parse; no expiry, as they never refresh.
      const token = routedHexSecret(account.id);
      await this.store.auth.insertIssuedToken(
        {
          hash: hashSecret(token),
          accountId: account.id,
          scope: request.scope,
          name: request.client.name,
          expiresAt: null,
          clientId: request.client.id,
          grantId: null,
        },
        at,
      );
      return redirectWith(request.redirectUri, true, {
        access_token: token,
        token_type: 'bearer',
        scope: request.scope,
        state: request.state,
      });
    }
    const code = routedSecret(account.id);
    await this.store.auth.insertCode({
      hash: hashSecret(code),
      clientId: request.client.id,
      accountId: account.id,
      redirectUri: request.redirectUri,
      scope: request.scope,
      challenge: request.challenge ?? null,
      expiresAt: at + CODE_LIFETIME_MICROS,
    });
    return redirectWith(request.redirectUri, false, { code, state: request.state });
  }

  deny(request: AuthorizeRequest): string {
    return redirectWith(request.redirectUri, request.responseType === 'token', {
      error: 'access_denied',
      error_description: 'the authorization was refused',
      state: request.state,
    });
  }

  /** `POST /oauth/token`: a code or a refresh token for an access token and a new refresh token. */
  async exchange(request: TokenRequest): Promise<TokenAnswer> {
    await this.#refuseIfThrottled(request.address);
    try {
      const client = await this.#authenticateClient(request);
      const { form } = request;
      // The original clients' code flow sent `type=web_server` and, in some versions, no grant_type.
      const grantType = form['grant_type'] ?? (form['code'] !== undefined ? 'authorization_code' : undefined);
      if (grantType === 'authorization_code') return await this.#redeemCode(client, form);
      if (grantType === 'refresh_token') return await this.#refresh(client, form);
      if (grantType === undefined) throw new OAuthError('invalid_request', 'grant_type is missing');
      throw new OAuthError('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
    } catch (error) {
      if (error instanceof OAuthError && (error.code === 'invalid_client' || error.code === 'invalid_grant')) {
        await this.store.auth.recordFailure(tokenEndpointKey(request.address), this.now());
      }
      throw error;
    }
  }

  /** `POST /oauth/revoke` (RFC 7009): an unknown token, or another client's, is answered alike. */
  async revoke(request: TokenRequest): Promise<void> {
    await this.#refuseIfThrottled(request.address);
    let client: OAuthClient;
    try {
      client = await this.#authenticateClient(request);
    } catch (error) {
      if (error instanceof OAuthError && error.code === 'invalid_client') {
        await this.store.auth.recordFailure(tokenEndpointKey(request.address), this.now());
      }
      throw error;
    }
    const token = request.form['token'];
    if (token === undefined || token === '') throw new OAuthError('invalid_request', 'token is missing');
    const key = secretKeyOf(token);
    const at = this.now();
    const access = await this.store.auth.findIssuedToken(key);
    if (access !== undefined) {
      if (access.clientId === client.id) await this.store.revokeToken(key);
      return;
    }
    const refresh = await this.store.auth.findRefreshToken(key);
    // A refresh token stands for the whole grant: revoking it ends the access tokens made from it.
    if (refresh !== undefined && refresh.clientId === client.id) {
      await this.store.auth.revokeGrant(refresh.accountId, refresh.grantId, at);
    }
  }

  async #redeemCode(client: OAuthClient, form: TokenRequest['form']): Promise<TokenAnswer> {
    const code = form['code'];
    if (code === undefined || code === '') throw new OAuthError('invalid_request', 'code is missing');
    const at = this.now();
    const taken = await this.store.auth.takeCode(secretKeyOf(code), at);
    if (taken === undefined) throw new OAuthError('invalid_grant', 'unknown code');
    if (taken.usedBefore) {
      // RFC 6749 section 4.1.2: a code replayed may be stolen; what it made is revoked.
      await this.store.auth.revokeGrant(taken.code.accountId, taken.code.hash, at);
      throw new OAuthError('invalid_grant', 'the code was used already; the tokens it made are revoked');
    }
    const bound = taken.code;
    // Taken now, whatever follows: a refusal from here on says the code is spent (issue 21).
    const usedUp = (reason: string): OAuthError =>
      new OAuthError('invalid_grant', `${reason}; the code is used up: start the authorization again`);
    if (bound.clientId !== client.id) throw usedUp('the code was issued to another client');
    if (bound.expiresAt <= at) throw new OAuthError('invalid_grant', 'the code has expired');
    const redirectUri = form['redirect_uri'];
    const sole = client.redirectUris.length === 1 ? client.redirectUris[0] : undefined;
    if (redirectUri === undefined ? bound.redirectUri !== sole : redirectUri !== bound.redirectUri) {
      throw usedUp('redirect_uri differs from the authorization request');
    }
    const verifier = form['code_verifier'];
    if (bound.challenge !== null) {
      if (verifier === undefined || verifier === '') throw usedUp('code_verifier is missing');
      if (!PKCE_VALUE.test(verifier) || !sameHash(s256(verifier), bound.challenge)) {
        throw usedUp('code_verifier does not match the code_challenge');
      }
    } else if (verifier !== undefined) {
      throw usedUp('code_verifier sent for a code issued without a challenge');
    }
    await this.#requireEnabled(bound.accountId);
    return this.#issue(client, bound.accountId, bound.scope, bound.hash, at);
  }

  async #refresh(client: OAuthClient, form: TokenRequest['form']): Promise<TokenAnswer> {
    const token = form['refresh_token'];
    if (token === undefined || token === '') throw new OAuthError('invalid_request', 'refresh_token is missing');
    const found = secretKeyOf(token);
    const at = this.now();
    const grant = await this.store.auth.findRefreshToken(found);
    if (grant === undefined || grant.clientId !== client.id)
      throw new OAuthError('invalid_grant', 'unknown refresh token');
    // Found: its account is known now, whichever way the token led there.
    const key = { hash: found.hash, accountId: grant.accountId };
    if (grant.revoked) {
      // Refresh tokens rotate: a spent one coming back means two parties hold it; end the grant.
      await this.store.auth.revokeGrant(grant.accountId, grant.grantId, at);
      throw new OAuthError('invalid_grant', 'the refresh token was revoked or used already');
    }
    const asked = form['scope'] === undefined ? grant.scope : parseScope(form['scope']);
    if (asked === undefined || !scopeCovers(grant.scope, asked)) {
      throw new OAuthError('invalid_scope', 'a refresh may not widen the scope');
    }
    if (!(await this.store.auth.spendRefreshToken(key, at))) {
      await this.store.auth.revokeGrant(grant.accountId, grant.grantId, at);
      throw new OAuthError('invalid_grant', 'the refresh token was used already');
    }
    await this.#requireEnabled(grant.accountId);
    return this.#issue(client, grant.accountId, asked, grant.grantId, at);
  }

  async #issue(
    client: OAuthClient,
    accountId: number,
    scope: Scope,
    grantId: string,
    at: Micros,
  ): Promise<TokenAnswer> {
    const accessToken = routedHexSecret(accountId);
    const refreshToken = routedHexSecret(accountId);
    await this.store.auth.insertIssuedToken(
      {
        hash: hashSecret(accessToken),
        accountId,
        scope,
        name: client.name,
        expiresAt: at + ACCESS_TOKEN_LIFETIME_SECONDS * MICROS_PER_SECOND,
        clientId: client.id,
        grantId,
      },
      at,
    );
    await this.store.auth.insertRefreshToken(
      hashSecret(refreshToken),
      { accountId, clientId: client.id, scope, grantId },
      at,
    );
    return {
      access_token: accessToken,
      token_type: 'bearer',
      expires_in: ACCESS_TOKEN_LIFETIME_SECONDS,
      refresh_token: refreshToken,
      scope,
    };
  }

  async #requireEnabled(accountId: number): Promise<void> {
    const account = await this.store.getAccount(accountId);
    if (account === undefined || account.disabled) throw new OAuthError('invalid_grant', 'the account is disabled');
  }

  /** HTTP Basic or `client_id` (+ `client_secret`) in the form; never both kinds at once. */
  async #authenticateClient(request: TokenRequest): Promise<OAuthClient> {
    const { form, basic } = request;
    if (
      basic !== undefined &&
      (form['client_secret'] !== undefined || (form['client_id'] !== undefined && form['client_id'] !== basic.clientId))
    ) {
      throw new OAuthError(
        'invalid_request',
        'client credentials sent both in the Authorization header and in the form',
      );
    }
    const clientId = basic?.clientId ?? form['client_id'] ?? '';
    const secret = basic?.secret ?? form['client_secret'];
    const client = CLIENT_ID_PATTERN.test(clientId) ? await this.store.auth.findClient(clientId) : undefined;
    if (client === undefined) throw new OAuthError('invalid_client', 'unknown client');
    if (client.secretHash === null) {
      if (secret !== undefined && secret !== '')
        throw new OAuthError('invalid_client', 'a public client has no secret');
      return client;
    }
    if (secret === undefined || !sameHash(hashSecret(secret), client.secretHash)) {
      throw new OAuthError('invalid_client', 'wrong or missing client secret');
    }
    return client;
  }

  async #refuseIfThrottled(address: string): Promise<void> {
    const at = this.now();
    const until = refusedUntil(
      await this.store.auth.failuresSince(tokenEndpointKey(address), at - THROTTLE_WINDOW_MICROS),
      FAILURES_PER_ADDRESS,
    );
    if (until !== null && at < until)
      throw new OAuthError('temporarily_unavailable', 'too many failed attempts; try again later');
  }

  /** The redirect URI of the request: a registered one, or the only one when none is given. */
  #redirectUriOf(client: OAuthClient, given: string | undefined): string | undefined {
    if (given === undefined || given === '') {
      const [only, ...more] = client.redirectUris;
      return more.length === 0 ? only : undefined;
    }
    return redirectUriMatches(client.redirectUris, given) ? given : undefined;
  }
}
