import type { SyncKind } from '../../domain/sync.js';
import type { SqliteDatabase } from './connection.js';
import { prepareLabelReads, prepareWriters, type LabelReads, type RecordWriter } from './kind-statements.js';

/** The statements a write transaction runs on the write connection, prepared once. */
export interface RecordWrites {
  readonly kinds: { readonly [K in SyncKind]: RecordWriter<K> };
  readonly labels: LabelReads;
}

export function prepareRecordWrites(db: SqliteDatabase): RecordWrites {
  return {
    kinds: prepareWriters(db),
    labels: prepareLabelReads(db),
  };
}
