import type { Micros } from './time.js';
import type { AccountHead } from './sync.js';

export type Scope = 'read' | 'write';

export interface Account {
  readonly id: number;
  readonly username: string;
  readonly nickname: string;
  readonly timezone: string;
  readonly language: string;
  readonly weekStart: number;
  readonly disabled: boolean;
  readonly created: Micros;
  readonly updated: Micros;
}

export interface NewAccount {
  readonly username: string;
  readonly passwordHash: string | null;
  readonly timezone: string;
}

export interface SettingsPatch {
  readonly nickname?: string;
  readonly timezone?: string;
  readonly language?: string;
  readonly weekStart?: number;
}

export interface NewToken {
  readonly hash: string;
  readonly accountId: number;
  readonly scope: Scope;
  readonly name: string;
  readonly expiresAt: Micros | null;
}

/** What a request's token grants, as the store finds it by the token's hash. */
export interface TokenGrant {
  readonly account: Account;
  readonly scope: Scope;
  readonly expiresAt: Micros | null;
  readonly revoked: boolean;
  /**
   * Where the account's data stood when the token was checked, when the store read it in the same
   * statement (PostgreSQL: it saves a request a round trip); absent, ask the store.
   */
  readonly head?: AccountHead;
}

export const USERNAME_PATTERN = /^[A-Za-z0-9_.@-]{1,64}$/;

/** The one rule of a sign-in password, wherever one is set: the web forms, `user add`, `user passwd`. */
export const PASSWORD_MIN_LENGTH = 8;

/** Why `password` may not be a sign-in password, or undefined when it may. */
export function passwordRefusal(password: string): string | undefined {
  return password.length < PASSWORD_MIN_LENGTH
    ? `a password has at least ${PASSWORD_MIN_LENGTH} characters`
    : undefined;
}

/** The interface language of a new account until the user picks one. */
export const DEFAULT_LANGUAGE = 'en';

/** Weeks start on Monday (1), as in ISO 8601 and most of the world; 0 would be Sunday. */
export const DEFAULT_WEEK_START = 1;
