import type { Account, Scope } from '../domain/account.js';
import { CLIENT_ID_PATTERN, tokenIdOf, type ConnectedApp, type TokenSummary } from '../domain/auth.js';
import { MICROS_PER_DAY, type Clock } from '../domain/time.js';
import type { Store } from '../store/store.js';
import { hashSecret, routedSecret } from './secrets.js';

/** A token's name: what the person will recognise it by in the list (and `token list`). */
const MAX_TOKEN_NAME_CHARS = 100;
/** The longest expiry the settings page offers, in days. */
const MAX_EXPIRY_DAYS = 3650;
const TOKEN_ID = /^[0-9a-f]{16}$/;

export interface NewPersonalToken {
  readonly name: string;
  readonly scope: Scope;
  /** Null: never expires. */
  readonly expiresInDays: number | null;
}

export type MadeToken =
  | { readonly ok: true; readonly token: string; readonly summary: TokenSummary }
  | { readonly ok: false; readonly message: string };

/**
 * What a signed-in person manages of the access to their own account (ACCOUNTS.md section 4):
 * their tokens (made by the CLI or here; shown once, revoked by id) and the OAuth apps they
 * allowed. Every call names the account, and touches nothing of another.
 */
export class AccountAccessService {
  constructor(
    private readonly store: Store,
    private readonly now: Clock,
  ) {}

  /**
   * The tokens a person made themselves (here or with `token create`) that still work: not the
   * ones an app holds (listed with the app) nor the web app's own per-browser tokens.
   */
  async personalTokens(account: Account): Promise<readonly TokenSummary[]> {
    const at = this.now();
    const tokens = await this.store.auth.listTokens(account.id);
    return tokens.filter(
      (token) =>
        !token.revoked &&
        !token.sessionBound &&
        token.clientId === null &&
        (token.expiresAt === null || token.expiresAt > at),
    );
  }

  async makeToken(account: Account, request: NewPersonalToken): Promise<MadeToken> {
    const name = request.name.trim();
    if (name === '') return { ok: false, message: 'a token needs a name' };
    if ([...name].length > MAX_TOKEN_NAME_CHARS) {
      return { ok: false, message: `a token name has at most ${MAX_TOKEN_NAME_CHARS} characters` };
    }
    const days = request.expiresInDays;
    if (days !== null && (!Number.isInteger(days) || days < 1 || days > MAX_EXPIRY_DAYS)) {
      return { ok: false, message: `a token expires in 1 to ${MAX_EXPIRY_DAYS} days, or never` };
    }
    const token = routedSecret(account.id);
    const hash = hashSecret(token);
    const at = this.now();
    const expiresAt = days === null ? null : at + days * MICROS_PER_DAY;
    await this.store.auth.insertIssuedToken(
      { hash, accountId: account.id, scope: request.scope, name, expiresAt, clientId: null, grantId: null },
      at,
    );
    const summary: TokenSummary = {
      id: tokenIdOf(hash),
      name,
      scope: request.scope,
      clientId: null,
      created: at,
      lastUsed: null,
      expiresAt,
      revoked: false,
      sessionBound: false,
    };
    return { ok: true, token, summary };
  }

  /** Revokes the account's token with this id; false when the account has no such token. */
  async revokeToken(account: Account, id: string): Promise<boolean> {
    return TOKEN_ID.test(id) && this.store.auth.revokeTokenById(id, this.now(), account.id);
  }

  connectedApps(account: Account): Promise<readonly ConnectedApp[]> {
    return this.store.auth.listConnectedApps(account.id);
  }

  /**
   * Ends what the account gave the app: its tokens and refresh tokens stop working at once, and
   * the app must ask again. False: the account never allowed that app.
   */
  async revokeApp(account: Account, clientId: string): Promise<boolean> {
    if (!CLIENT_ID_PATTERN.test(clientId)) return false;
    if ((await this.store.auth.findConsent(account.id, clientId)) === undefined) return false;
    await this.store.auth.revokeClientAccess(account.id, clientId, this.now());
    return true;
  }
}
