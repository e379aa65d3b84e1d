import { passwordRefusal, type Account } from '../domain/account.js';
import type { TokenSummary } from '../domain/auth.js';
import type { Clock } from '../domain/time.js';
import type { Store } from '../store/store.js';
import { AdminError } from './accounts.js';
import { hashPassword } from './passwords.js';

/** The operator's commands on accounts and tokens beyond `user add` and `token create`. */
export class AccountAdmin {
  constructor(
    private readonly store: Store,
    private readonly now: Clock,
  ) {}

  /** Sets a new password; every session of the account (and its web app tokens) ends with it, in every process. */
  async setPassword(username: string, password: string): Promise<void> {
    if (password === '') throw new AdminError('the password is empty');
    const weak = passwordRefusal(password);
    if (weak !== undefined) throw new AdminError(weak);
    if (!(await this.store.auth.setPassword(username, await hashPassword(password), this.now()))) {
      throw new AdminError(`no such user: ${username}`);
    }
  }

  async enableUser(username: string): Promise<void> {
    if (!(await this.store.setDisabled(username, false))) throw new AdminError(`no such user: ${username}`);
  }

  listUsers(): Promise<readonly Account[]> {
    return this.store.auth.listAccounts();
  }

  async listTokens(username: string): Promise<readonly TokenSummary[]> {
    return this.store.auth.listTokens((await this.#account(username)).id);
  }

  async revokeTokenById(id: string): Promise<void> {
    if (!/^[0-9a-f]{16}$/.test(id) || !(await this.store.auth.revokeTokenById(id, this.now()))) {
      throw new AdminError(`no token with id ${id}`);
    }
  }

  async revokeTokensByName(username: string, name: string): Promise<number> {
    const revoked = await this.store.auth.revokeTokensByName((await this.#account(username)).id, name, this.now());
    if (revoked === 0) throw new AdminError(`user ${username} has no live token named "${name}"`);
    return revoked;
  }

  async #account(username: string): Promise<Account> {
    const account = await this.store.findAccount(username);
    if (account === undefined) throw new AdminError(`no such user: ${username}`);
    return account;
  }
}
