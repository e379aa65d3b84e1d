import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';

/** Where tests may create and drop databases; any database of the server works as the base. */
export const TEST_DATABASE_BASE_URL = process.env['TEST_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  /** Connection URL of the new, empty database. */
  readonly url: string;
  readonly name: string;
  /** Drops the database, disconnecting whoever still uses it. */
  drop(): Promise<void>;
}

/** Database names are identifiers, which cannot be statement parameters: only this shape is used. */
const TEST_DATABASE_NAME = /^task_service_test_[0-9a-f]{16}$/;

async function withAdminClient<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_BASE_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** How long a drop waits for connections still closing: 20 × 50 ms, then they are cut. */
const CLOSING_TRIES = 20;
const CLOSING_WAIT_MS = 50;

/** Creates an empty database `task_service_test_<random>` next to the base database. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `task_service_test_${randomBytes(8).toString('hex')}`;
  if (!TEST_DATABASE_NAME.test(name)) throw new Error(`unexpected test database name ${name}`);
  await withAdminClient((client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(TEST_DATABASE_BASE_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: async () => {
      await withAdminClient(async (client) => {
        // Connections still closing (a pool ending its clients) are let go by themselves first: one
        // terminated mid-close raises an error its client no longer listens for (57P01).
        for (let tries = 0; tries < CLOSING_TRIES; tries += 1) {
          const open = await client.query<{ open: string }>(
            'SELECT count(*) AS open FROM pg_stat_activity WHERE datname = $1',
            [name],
          );
          if (Number(open.rows[0]?.open ?? 0) === 0) break;
          await sleep(CLOSING_WAIT_MS);
        }
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      });
    },
  };
}
