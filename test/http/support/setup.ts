import { afterAll, beforeAll } from 'vitest';
import { startHarness, type AppOptions, type Engine, type Harness, type User } from '../../support/harness.js';
import type { ServiceOptions } from '../../../src/service/services.js';
import { Client } from './api.js';

export interface Suite {
  readonly harness: Harness;
  /** A new account in `timezone` (default UTC) and a client holding its write token. */
  newClient(timezone?: string): Promise<{ client: Client; user: User }>;
  /** The store's id of a test account, for reading exact values (microseconds) from the store. */
  accountIdOf(user: User): Promise<number>;
}

/**
 * One harness for the enclosing describe block (one per file and engine): started before its
 * tests, closed after them. Each test makes its own accounts, so tests do not see each other.
 */
export function useHarness(
  engine: Engine,
  options: { maintenance?: boolean; app?: AppOptions; services?: ServiceOptions } = {},
): () => Suite {
  let harness: Harness | undefined;
  beforeAll(async () => {
    harness = await startHarness(engine, options);
  });
  afterAll(async () => {
    await harness?.close();
  });
  return () => {
    const started = harness;
    if (started === undefined) throw new Error('the harness is not started');
    return {
      harness: started,
      async newClient(timezone = 'UTC') {
        const user = await started.newUser(timezone);
        return { client: new Client(started.app, user.token), user };
      },
      async accountIdOf(user) {
        const account = await started.store.findAccount(user.username);
        if (account === undefined) throw new Error(`no account ${user.username}`);
        return account.id;
      },
    };
  };
}
