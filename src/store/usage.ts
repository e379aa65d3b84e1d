import { statSync } from 'node:fs';
import path from 'node:path';
import type { StoreLocation } from '../config/store-location.js';
import { SQLITE_FILE_NAME } from './open.js';
import type { Store } from './store.js';

/** What an engine can say about its load when asked: the figures it has, nothing else. */
export interface StoreUsageFigures {
  readonly walBytes?: number;
  readonly pool?: { readonly total: number; readonly idle: number; readonly waiting: number };
}

interface PoolReporting {
  poolUsage(): NonNullable<StoreUsageFigures['pool']>;
}

function reportsPool(store: Store): store is Store & PoolReporting {
  return 'poolUsage' in store && typeof store.poolUsage === 'function';
}

/**
 * A reader of the store's figures for the metrics: on SQLite the size of the write-ahead log (a
 * WAL that keeps growing means checkpoints cannot keep up, or a reader holds a snapshot open),
 * on PostgreSQL this process's connection pool.
 */
export function storeUsageReader(location: StoreLocation, store: Store): () => StoreUsageFigures {
  if (location.engine === 'sqlite') {
    const wal = path.join(location.dataDir, `${SQLITE_FILE_NAME}-wal`);
    return () => {
      try {
        return { walBytes: statSync(wal).size };
      } catch {
        // No WAL file between a checkpoint that removed it and the next write.
        return { walBytes: 0 };
      }
    };
  }
  return () => (reportsPool(store) ? { pool: store.poolUsage() } : {});
}
