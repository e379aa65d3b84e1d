import { redirectUriRefusal, type OAuthClient } from '../domain/auth.js';
import type { Clock } from '../domain/time.js';
import type { Store } from '../store/store.js';
import { AdminError } from './accounts.js';
import { hashSecret, randomHex } from './secrets.js';

export interface NewClient {
  readonly name: string;
  readonly redirectUris: readonly string[];
  readonly public: boolean;
  readonly legacyImplicit: boolean;
}

/** What `client add` shows once: the id, and the secret of a confidential client. */
export interface RegisteredClient {
  readonly id: string;
  readonly secret: string | null;
}

/** Registration of OAuth clients by an administrator (ACCOUNTS.md section 3). */
export class ClientAdmin {
  constructor(
    private readonly store: Store,
    private readonly now: Clock,
  ) {}

  async add(client: NewClient): Promise<RegisteredClient> {
    if (client.name.trim() === '') throw new AdminError('a client needs a name');
    if (client.redirectUris.length === 0) throw new AdminError('a client needs at least one --redirect-uri');
    for (const uri of client.redirectUris) {
      const refusal = redirectUriRefusal(uri);
      if (refusal !== undefined) throw new AdminError(`${refusal}: ${uri}`);
    }
    // 12 and 32 random bytes: 24 and 64 lowercase hex characters, as the original service's were.
    const id = randomHex(12);
    const secret = client.public ? null : randomHex(32);
    await this.store.auth.insertClient({
      id,
      name: client.name,
      secretHash: secret === null ? null : hashSecret(secret),
      redirectUris: client.redirectUris,
      legacyImplicit: client.legacyImplicit,
      created: this.now(),
    });
    return { id, secret };
  }

  list(): Promise<readonly OAuthClient[]> {
    return this.store.auth.listClients();
  }

  /** Removes the client; every token it holds stops working on the very next request. */
  async remove(id: string): Promise<void> {
    if (!(await this.store.auth.removeClient(id, this.now()))) {
      throw new AdminError(`no such client: ${id}`);
    }
  }
}
