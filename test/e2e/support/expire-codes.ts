import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { StoreArgs } from './accounts.js';

/**
 * Ages every authorization code of the store past its 60-second life, straight in the database:
 * the one way to test expiry without waiting a minute or faking the server's clock.
 */
export async function expireAllCodes(store: StoreArgs): Promise<void> {
  if (store.databaseUrl !== undefined) {
    const client = new pg.Client({ connectionString: store.databaseUrl });
    await client.connect();
    try {
      await client.query('UPDATE oauth_codes SET expires_at = 0');
    } finally {
      await client.end();
    }
    return;
  }
  const db = new Database(path.join(store.dataDir, 'tasks.sqlite'));
  try {
    db.pragma('busy_timeout = 5000');
    db.prepare('UPDATE oauth_codes SET expires_at = 0').run();
  } finally {
    db.close();
  }
}
