/** The account's sync position, read and advanced by every write transaction. */
export interface AccountHeadRow {
  readonly rev: number;
  readonly last_updated: number;
}

/** What a list snapshot reports about the account besides its records. */
export interface AccountListHeadRow {
  readonly rev: number;
  readonly purged_rev: number;
  readonly purged_updated: number;
  readonly restore_gap_after: number;
  readonly restore_gap_before: number;
  readonly epoch: string;
  readonly legacy_positions: number;
}
