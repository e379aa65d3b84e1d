import { passwordRefusal, USERNAME_PATTERN, type Account } from '../domain/account.js';
import {
  FAILURES_PER_ADDRESS,
  FAILURES_PER_USERNAME,
  refusedUntil,
  SESSION_IDLE_MICROS,
  SESSION_LIFETIME_MICROS,
  THROTTLE_WINDOW_MICROS,
} from '../domain/auth.js';
import { MICROS_PER_SECOND, type Clock, type Micros } from '../domain/time.js';
import { isValidTimeZone } from '../domain/zone.js';
import type { Store } from '../store/store.js';
import { UsernameTakenError } from '../domain/errors.js';
import { decoy, hashPassword, verifyPassword } from './passwords.js';
import { hashSecret, routedSecret, secretKeyOf } from './secrets.js';

/** A session's last-seen time is written at most this often (it only has to beat 30 days). */
const TOUCH_EVERY_MICROS = 10 * 60 * MICROS_PER_SECOND;

/**
 * The web app's token lives a day: the app asks its session for a new one when it is refused, so
 * a copy taken from the browser is worth little for long, and the session still decides.
 */
const APP_TOKEN_LIFETIME_SECONDS = 86_400;
const APP_TOKEN_NAME = 'Web app';

/** A token the web app got from its session: shown once, to the browser that asked. */
export interface AppToken {
  readonly token: string;
  readonly expiresInSeconds: number;
}

export type PasswordChangeResult =
  | { readonly ok: true; readonly sessionId: string; readonly appToken: AppToken }
  | { readonly ok: false; readonly message: string };

/**
 * A refusal is one answer to the person (ACCOUNTS.md 2); `refused` is for the operator: `wrong`
 * (a name or password that does not match, or a disabled account) or `throttled` (not checked,
 * its address has failed too often).
 */
export type SignInResult =
  | { readonly ok: true; readonly sessionId: string; readonly account: Account }
  | { readonly ok: false; readonly refused: 'wrong' | 'throttled' };

export type SignUpResult =
  | { readonly ok: true; readonly sessionId: string; readonly account: Account }
  | { readonly ok: false; readonly message: string };

/** Why a Basic attempt failed: its password was the sign-in password, or nothing of the account's. */
export type BasicRefusal = 'sign_in_password' | 'wrong';

/**
 * Throttle keys (ACCOUNTS.md section 2): one per username from one address, one per address. A
 * username is never slowed as a whole: a stranger guessing from one address must not lock its
 * owner out from another (issue 21), so failures from many addresses slow those addresses only.
 */
const userKey = (username: string, address: string): string => `user:${username} from:${address}`;
const addressKey = (address: string): string => `addr:${address}`;

/**
 * Web sign-in: passwords checked against argon2id hashes, sessions kept in the store by the hash
 * of a random 256-bit id, and guessing slowed per username and per address.
 */
export class SignInService {
  constructor(
    private readonly store: Store,
    readonly signupOpen: boolean,
    private readonly now: Clock,
  ) {}

  /** Wrong name, wrong password, disabled account or throttled: one answer for all, `{ok: false}`. */
  async signIn(username: string, password: string, address: string): Promise<SignInResult> {
    const at = this.now();
    if (await this.#throttled(username, address, at)) return { ok: false, refused: 'throttled' };
    const found = USERNAME_PATTERN.test(username) ? await this.store.auth.findCredentials(username) : undefined;
    // An unknown name costs the same argon2 work as a wrong password.
    const matches = await verifyPassword(found === undefined ? await decoy() : found.passwordHash, password);
    if (found === undefined || !matches || found.account.disabled) {
      await this.store.auth.recordFailure(userKey(username, address), at);
      await this.store.auth.recordFailure(addressKey(address), at);
      return { ok: false, refused: 'wrong' };
    }
    await this.store.auth.clearFailures(userKey(username, address));
    return { ok: true, sessionId: await this.#startSession(found.account.id, at), account: found.account };
  }

  /**
   * A refused HTTP Basic attempt of CalDAV (its password is no token): counted like a failed
   * sign-in, and told apart only when it was the account's sign-in password, which Basic never
   * takes (the person is told to make an app password). A throttled attempt is not even checked.
   */
  async refuseBasic(username: string, password: string, address: string): Promise<BasicRefusal> {
    const at = this.now();
    if (await this.#throttled(username, address, at)) return 'wrong';
    const found = USERNAME_PATTERN.test(username) ? await this.store.auth.findCredentials(username) : undefined;
    const matches = await verifyPassword(found === undefined ? await decoy() : found.passwordHash, password);
    await this.store.auth.recordFailure(userKey(username, address), at);
    await this.store.auth.recordFailure(addressKey(address), at);
    return found !== undefined && matches && !found.account.disabled ? 'sign_in_password' : 'wrong';
  }

  /** `serve --signup`: a new account with a password, signed in at once. */
  async signUp(username: string, password: string, timezone: string, address: string): Promise<SignUpResult> {
    if (!this.signupOpen) return { ok: false, message: 'signing up is not open on this server' };
    if (!USERNAME_PATTERN.test(username)) {
      return { ok: false, message: 'a username is 1-64 characters of letters, digits, and _ . @ -' };
    }
    const weak = passwordRefusal(password);
    if (weak !== undefined) return { ok: false, message: weak };
    const at = this.now();
    // Sign-ups count against the address like failures, so a script cannot make accounts in bulk.
    if (
      refusedUntil(
        await this.store.auth.failuresSince(addressKey(address), at - THROTTLE_WINDOW_MICROS),
        FAILURES_PER_ADDRESS,
      ) !== null
    ) {
      return { ok: false, message: 'too many attempts from this address; try again later' };
    }
    await this.store.auth.recordFailure(addressKey(address), at);
    try {
      const account = await this.store.createAccount({
        username,
        passwordHash: await hashPassword(password),
        timezone: isValidTimeZone(timezone) ? timezone : 'UTC',
      });
      return { ok: true, sessionId: await this.#startSession(account.id, at), account };
    } catch (error) {
      if (error instanceof UsernameTakenError) return { ok: false, message: 'that username is taken' };
      throw error;
    }
  }

  /**
   * A person's own password change (the web app's settings): the current password is asked for,
   * and wrong guesses count against the username like failed sign-ins. Every session of the
   * account ends, with the web app's tokens, in every process; the caller's browser gets a new
   * session and a new token for it.
   */
  async changePassword(
    account: Account,
    current: string,
    next: string,
    address: string,
  ): Promise<PasswordChangeResult> {
    const weak = passwordRefusal(next);
    if (weak !== undefined) return { ok: false, message: weak };
    const at = this.now();
    const wrong = { ok: false, message: 'the current password is wrong' } as const;
    if (await this.#throttled(account.username, address, at)) return wrong;
    const found = await this.store.auth.findCredentials(account.username);
    if (found === undefined || !(await verifyPassword(found.passwordHash, current))) {
      await this.store.auth.recordFailure(userKey(account.username, address), at);
      await this.store.auth.recordFailure(addressKey(address), at);
      return wrong;
    }
    await this.store.auth.setPassword(account.username, await hashPassword(next), at);
    const sessionId = await this.#startSession(account.id, at);
    const appToken = await this.appTokenFor(sessionId);
    if (appToken === undefined) throw new Error('the session made a moment ago is gone');
    return { ok: true, sessionId, appToken };
  }

  /**
   * A token for the web app of a signed-in browser, bound to its session: signing out, a new
   * password or 30 idle days end both. Undefined: the session is not (or no longer) live.
   */
  async appTokenFor(sessionId: string): Promise<AppToken | undefined> {
    const account = await this.accountOf(sessionId);
    if (account === undefined) return undefined;
    const token = routedSecret(account.id);
    const at = this.now();
    const made = await this.store.auth.insertSessionToken(
      {
        hash: hashSecret(token),
        accountId: account.id,
        sessionHash: hashSecret(sessionId),
        name: APP_TOKEN_NAME,
        expiresAt: at + APP_TOKEN_LIFETIME_SECONDS * MICROS_PER_SECOND,
      },
      at,
    );
    return made ? { token, expiresInSeconds: APP_TOKEN_LIFETIME_SECONDS } : undefined;
  }

  /** The account signed in with this session id, if the session is live and the account enabled. */
  async accountOf(sessionId: string): Promise<Account | undefined> {
    if (sessionId === '') return undefined;
    const found = secretKeyOf(sessionId);
    const session = await this.store.auth.findSession(found);
    if (session === undefined || session.account.disabled) return undefined;
    // Found: its account is known now, whichever way the session id led there.
    const key = { hash: found.hash, accountId: session.account.id };
    const at = this.now();
    if (session.lastSeen <= at - SESSION_IDLE_MICROS || session.created <= at - SESSION_LIFETIME_MICROS) {
      await this.store.auth.deleteSession(key, at);
      return undefined;
    }
    if (at - session.lastSeen > TOUCH_EVERY_MICROS) await this.store.auth.touchSession(key, at);
    return session.account;
  }

  async signOut(sessionId: string): Promise<void> {
    if (sessionId !== '') await this.store.auth.deleteSession(secretKeyOf(sessionId), this.now());
  }

  /** Drops idle sessions and old throttle entries: housekeeping, run with the purge. */
  async forgetOld(): Promise<void> {
    const at = this.now();
    await this.store.auth.forgetSessions(at - SESSION_IDLE_MICROS, at);
    await this.store.auth.forgetFailures(at - THROTTLE_WINDOW_MICROS);
    await this.store.auth.forgetCodes(at);
  }

  async #throttled(username: string, address: string, at: Micros): Promise<boolean> {
    const since = at - THROTTLE_WINDOW_MICROS;
    const byUser = refusedUntil(
      await this.store.auth.failuresSince(userKey(username, address), since),
      FAILURES_PER_USERNAME,
    );
    const byAddress = refusedUntil(
      await this.store.auth.failuresSince(addressKey(address), since),
      FAILURES_PER_ADDRESS,
    );
    return (byUser !== null && at < byUser) || (byAddress !== null && at < byAddress);
  }

  async #startSession(accountId: number, at: Micros): Promise<string> {
    const sessionId = routedSecret(accountId);
    await this.store.auth.createSession(hashSecret(sessionId), accountId, at);
    return sessionId;
  }
}
