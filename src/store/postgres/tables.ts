import type pg from 'pg';
import { byKind, type RecordsByKind, type SyncKind } from '../../domain/sync.js';
import { kindCodec, type KindCodec } from '../kinds/codec.js';
import { KIND_STORAGE } from '../kinds/records.js';
import { POSTGRES_CODEC } from './codec.js';

/** Either the pool (one-off statements) or a leased connection (inside a transaction). */
export type Queryable = pg.Pool | pg.PoolClient;

/** How one synced kind is stored on PostgreSQL, derived from its one description. */
export interface KindTable<K extends SyncKind> {
  readonly codec: KindCodec<K>;
  /**
   * Runs `SELECT <columns> FROM <table> WHERE <condition>` (the condition may end in ORDER BY /
   * LIMIT; values only through `params`) and returns the records.
   */
  select(db: Queryable, condition: string, params: readonly unknown[]): Promise<RecordsByKind[K][]>;
  /** Insert or update by (account_id, id), returning the stored record; `created` on insert only. */
  readonly upsert: string;
  /** The columns a put writes, in order: the account, the draft's columns, then the stamps. */
  readonly putColumns: readonly string[];
  /** What an upsert's `ON CONFLICT (account_id, id) DO UPDATE SET` changes: all but `created`. */
  readonly conflictUpdates: string;
}

function kindTable<K extends SyncKind>(codec: KindCodec<K>): KindTable<K> {
  const columns = codec.columns.join(', ');
  const draft = codec.draftColumns;
  const stampAt = draft.length + 2;
  const updates = [
    ...draft.filter((name) => name !== 'id').map((name) => `${name} = EXCLUDED.${name}`),
    'updated = EXCLUDED.updated',
    'rev = EXCLUDED.rev',
  ].join(', ');
  return {
    codec,
    async select(db, condition, params) {
      const result = await db.query(`SELECT ${columns} FROM ${codec.table} WHERE ${condition}`, [...params]);
      return result.rows.map((row: Readonly<Record<string, unknown>>) => codec.fromObject(row));
    },
    // $1 is the account, then the draft's columns, then the stamp's `updated` (also `created`) and rev.
    upsert: `INSERT INTO ${codec.table} (account_id, ${draft.join(', ')}, created, updated, rev)
      VALUES (${['$1', ...draft.map((_name, index) => `$${index + 2}`), `$${stampAt}`, `$${stampAt}`, `$${stampAt + 1}`].join(', ')})
      ON CONFLICT (account_id, id) DO UPDATE SET ${updates}
      RETURNING ${columns}`,
    putColumns: ['account_id', ...draft, 'created', 'updated', 'rev'],
    conflictUpdates: updates,
  };
}

export const KIND_TABLES = byKind<{ readonly [K in SyncKind]: KindTable<K> }>(<K extends SyncKind>(kind: K) =>
  kindTable(kindCodec(KIND_STORAGE[kind], POSTGRES_CODEC)),
);
