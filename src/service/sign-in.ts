import { USERNAME_PATTERN, type Account } from '../domain/account.js';
import {
  FAILURES_PER_ADDRESS,
  FAILURES_PER_USERNAME,
  refusedUntil,
  SESSION_IDLE_MICROS,
  THROTTLE_WINDOW_MICROS,
} from '../domain/auth.js';
import { microsFromMillis, MICROS_PER_SECOND, type Micros } from '../domain/time.js';
import { isValidTimeZone } from '../domain/zone.js';
import type { Store } from '../store/store.js';
import { UsernameTakenError } from '../domain/errors.js';
import { decoy, hashPassword, verifyPassword } from './passwords.js';
import { hashSecret, randomSecret } from './secrets.js';

/** A session's last-seen time is written at most this often (it only has to beat 30 days). */
const TOUCH_EVERY_MICROS = 10 * 60 * MICROS_PER_SECOND;

export type SignInResult =
  { readonly ok: true; readonly sessionId: string; readonly account: Account } | { readonly ok: false };

export type SignUpResult =
  | { readonly ok: true; readonly sessionId: string; readonly account: Account }
  | { readonly ok: false; readonly message: string };

const now = (): Micros => microsFromMillis(Date.now());

/** Throttle keys: one per username, one per client address (ACCOUNTS.md section 2). */
const userKey = (username: string): string => `user:${username}`;
const addressKey = (address: string): string => `addr:${address}`;

/**
 * Web sign-in: passwords checked against argon2id hashes, sessions kept in the store by the hash
 * of a random 256-bit id, and guessing slowed per username and per address.
 */
export class SignInService {
  constructor(
    private readonly store: Store,
    readonly signupOpen: boolean,
  ) {}

  /** Wrong name, wrong password, disabled account or throttled: one answer for all, `{ok: false}`. */
  async signIn(username: string, password: string, address: string): Promise<SignInResult> {
    const at = now();
    if (await this.#throttled(username, address, at)) return { ok: false };
    const found = USERNAME_PATTERN.test(username) ? await this.store.auth.findCredentials(username) : undefined;
    // An unknown name costs the same argon2 work as a wrong password.
    const matches = await verifyPassword(found === undefined ? await decoy() : found.passwordHash, password);
    if (found === undefined || !matches || found.account.disabled) {
      await this.store.auth.recordFailure(userKey(username), at);
      await this.store.auth.recordFailure(addressKey(address), at);
      return { ok: false };
    }
    await this.store.auth.clearFailures(userKey(username));
    return { ok: true, sessionId: await this.#startSession(found.account.id, at), account: found.account };
  }

  /** `serve --signup`: a new account with a password, signed in at once. */
  async signUp(username: string, password: string, timezone: string, address: string): Promise<SignUpResult> {
    if (!this.signupOpen) return { ok: false, message: 'signing up is not open on this server' };
    if (!USERNAME_PATTERN.test(username)) {
      return { ok: false, message: 'a username is 1-64 characters of letters, digits, and _ . @ -' };
    }
    if (password.length < 8) return { ok: false, message: 'a password has at least 8 characters' };
    const at = now();
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
   * A person's own password change (the web app's settings): the current password is asked for.
   * Every session of the account ends, in every process; the caller's browser gets a new one.
   */
  async changePassword(account: Account, current: string, next: string): Promise<SignUpResult> {
    if (next.length < 8) return { ok: false, message: 'a password has at least 8 characters' };
    const found = await this.store.auth.findCredentials(account.username);
    if (found === undefined || !(await verifyPassword(found.passwordHash, current))) {
      return { ok: false, message: 'the current password is wrong' };
    }
    await this.store.auth.setPassword(account.username, await hashPassword(next));
    return { ok: true, sessionId: await this.#startSession(account.id, now()), account: found.account };
  }

  /** The account signed in with this session id, if the session is live and the account enabled. */
  async accountOf(sessionId: string): Promise<Account | undefined> {
    if (sessionId === '') return undefined;
    const hash = hashSecret(sessionId);
    const session = await this.store.auth.findSession(hash);
    if (session === undefined || session.account.disabled) return undefined;
    const at = now();
    if (session.lastSeen <= at - SESSION_IDLE_MICROS) {
      await this.store.auth.deleteSession(hash);
      return undefined;
    }
    if (at - session.lastSeen > TOUCH_EVERY_MICROS) await this.store.auth.touchSession(hash, at);
    return session.account;
  }

  async signOut(sessionId: string): Promise<void> {
    if (sessionId !== '') await this.store.auth.deleteSession(hashSecret(sessionId));
  }

  /** Drops idle sessions and old throttle entries: housekeeping, run with the purge. */
  async forgetOld(): Promise<void> {
    const at = now();
    await this.store.auth.forgetSessions(at - SESSION_IDLE_MICROS);
    await this.store.auth.forgetFailures(at - THROTTLE_WINDOW_MICROS);
    await this.store.auth.forgetCodes(at);
  }

  async #throttled(username: string, address: string, at: Micros): Promise<boolean> {
    const since = at - THROTTLE_WINDOW_MICROS;
    const byUser = refusedUntil(await this.store.auth.failuresSince(userKey(username), since), FAILURES_PER_USERNAME);
    const byAddress = refusedUntil(
      await this.store.auth.failuresSince(addressKey(address), since),
      FAILURES_PER_ADDRESS,
    );
    return (byUser !== null && at < byUser) || (byAddress !== null && at < byAddress);
  }

  async #startSession(accountId: number, at: Micros): Promise<string> {
    const sessionId = randomSecret();
    await this.store.auth.createSession(hashSecret(sessionId), accountId, at);
    return sessionId;
  }
}
