import { createHash } from 'node:crypto';
import { passwordRefusal, USERNAME_PATTERN, type Account, type Scope, type TokenGrant } from '../domain/account.js';
import { MICROS_PER_DAY, type Clock } from '../domain/time.js';
import { isValidTimeZone } from '../domain/zone.js';
import type { Store } from '../store/store.js';
import { LastUseRecorder } from './last-use.js';
import { routedSecret, secretKeyOf } from './secrets.js';

/** A mistake an operator made on the command line (unknown user, bad zone…), shown as it is. */
export class AdminError extends Error {
  override name = 'AdminError';
}

/** Why a credential does not let a request in: 401 or 403 in HTTP terms. */
export type Denial = 'unauthenticated' | 'forbidden';

export type Authentication =
  { readonly ok: true; readonly grant: TokenGrant } | { readonly ok: false; readonly denial: Denial };

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Accounts and their tokens: the operator's commands and the check every request makes. */
export class AccountService {
  readonly #lastUse: LastUseRecorder;

  constructor(
    private readonly store: Store,
    private readonly now: Clock,
  ) {
    this.#lastUse = new LastUseRecorder(store.auth, now);
  }

  async addUser(username: string, password: string | null, timezone: string): Promise<Account> {
    if (!USERNAME_PATTERN.test(username)) {
      throw new AdminError('a username is 1-64 characters of letters, digits, and _ . @ -');
    }
    if (!isValidTimeZone(timezone)) throw new AdminError(`unknown time zone: ${timezone}`);
    const weak = password === null ? undefined : passwordRefusal(password);
    if (weak !== undefined) throw new AdminError(weak);
    // argon2id is the library's default algorithm; loaded here only, as only this command needs it.
    const passwordHash = password === null ? null : await (await import('@node-rs/argon2')).hash(password);
    return this.store.createAccount({ username, passwordHash, timezone });
  }

  async disableUser(username: string): Promise<void> {
    if (!(await this.store.setDisabled(username, true))) throw new AdminError(`no such user: ${username}`);
  }

  async createToken(username: string, scope: Scope, name: string, expiresInDays: number | null): Promise<string> {
    const account = await this.store.findAccount(username);
    if (account === undefined) throw new AdminError(`no such user: ${username}`);
    // A token of a disabled account would be refused (E403) at once: say so instead of making one.
    if (account.disabled)
      throw new AdminError(`user ${username} is disabled: its tokens are refused, so none was made`);
    const secret = routedSecret(account.id);
    const expiresAt = expiresInDays === null ? null : this.now() + expiresInDays * MICROS_PER_DAY;
    await this.store.insertToken({ hash: hashToken(secret), accountId: account.id, scope, name, expiresAt });
    return secret;
  }

  async revokeToken(token: string): Promise<void> {
    if (!(await this.store.revokeToken(secretKeyOf(token)))) throw new AdminError('no such token');
  }

  /** Hashes first and looks up by hash, so an unknown token costs the same as a wrong one. */
  async authenticate(token: string): Promise<Authentication> {
    const key = secretKeyOf(token);
    const grant = await this.store.findToken(key);
    if (grant === undefined || grant.revoked) return { ok: false, denial: 'unauthenticated' };
    if (grant.expiresAt !== null && grant.expiresAt <= this.now()) {
      return { ok: false, denial: 'unauthenticated' };
    }
    if (grant.account.disabled) return { ok: false, denial: 'forbidden' };
    this.#lastUse.note(grant.account.id, key.hash);
    return { ok: true, grant };
  }
}
