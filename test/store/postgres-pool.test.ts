/**
 * The settings every pooled PostgreSQL connection runs with. Issue #16, 3: a connection left
 * inside a transaction (a list stream whose client stopped reading) is ended by the server too,
 * should this process ever fail to end it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool } from '../../src/store/postgres/pool.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';

describe('the PostgreSQL pool', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database.drop();
  });

  it('ends a transaction left idle for 60 s, and a statement running for 10 s', async () => {
    const pool = createPool({ url: database.url });
    try {
      const idle = await pool.query<{ idle_in_transaction_session_timeout: string }>(
        'SHOW idle_in_transaction_session_timeout',
      );
      expect(idle.rows[0]?.idle_in_transaction_session_timeout).toBe('1min');
      const statement = await pool.query<{ statement_timeout: string }>('SHOW statement_timeout');
      expect(statement.rows[0]?.statement_timeout).toBe('10s');
    } finally {
      await pool.end();
    }
  });
});
