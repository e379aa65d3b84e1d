import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The server the bench makes its database on; any database of it serves to connect first. */
export const BENCH_POSTGRES_BASE_URL =
  process.env['BENCH_DATABASE_URL'] ??
  process.env['TEST_DATABASE_URL'] ??
  'postgres://postgres@127.0.0.1:5432/postgres';

/** Database names are identifiers, not parameters: only this shape is ever created or dropped. */
const BENCH_DATABASE_NAME = /^task_service_bench_[0-9a-f]{16}$/;

export interface BenchDatabase {
  readonly url: string;
  readonly name: string;
  drop(): Promise<void>;
}

async function withAdminClient<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: BENCH_POSTGRES_BASE_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Answers the server's version, or undefined when no PostgreSQL answers at the base URL. */
export async function postgresVersion(): Promise<string | undefined> {
  try {
    return await withAdminClient(async (client) => {
      const result = await client.query<{ server_version: string }>('SHOW server_version');
      return result.rows[0]?.server_version;
    });
  } catch {
    return undefined;
  }
}

/** A fresh, empty database `task_service_bench_<random>`; `drop()` removes it again. */
export async function createBenchDatabase(): Promise<BenchDatabase> {
  const name = `task_service_bench_${randomBytes(8).toString('hex')}`;
  if (!BENCH_DATABASE_NAME.test(name)) throw new Error(`unexpected database name ${name}`);
  await withAdminClient((client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(BENCH_POSTGRES_BASE_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: async () => {
      await withAdminClient((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

/** Gathers planner statistics after a bulk load, as autovacuum would have on a database grown over time. */
export async function analyze(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('ANALYZE');
  } finally {
    await client.end();
  }
}

/** The ids of the database's accounts, first to last, which must be all the ids between. */
export async function accountIdRange(url: string): Promise<{ first: number; last: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query<{ first: string; last: string; count: string }>(
      'SELECT min(id) AS first, max(id) AS last, count(*) AS count FROM accounts',
    );
    const row = result.rows[0];
    const [first, last, count] = [Number(row?.first), Number(row?.last), Number(row?.count)];
    if (!(count > 0 && last - first + 1 === count)) throw new Error(`account ids ${first}…${last} have gaps`);
    return { first, last };
  } finally {
    await client.end();
  }
}
