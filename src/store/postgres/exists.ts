import pg from 'pg';

/** Whether the database at `url` holds the tables of task-service; creates nothing. */
export async function postgresStoreExists(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    const result = await client.query<{ found: boolean }>(
      "SELECT to_regclass('schema_migrations') IS NOT NULL AS found",
    );
    return result.rows[0]?.found === true;
  } finally {
    await client.end();
  }
}
