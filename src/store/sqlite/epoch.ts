/**
 * A new epoch for the store, as SQL: 64 bits from SQLite's generator (seeded by the operating
 * system's randomness), in hex. An epoch names one life of the store; it need not be secret, only
 * never the same as another store's.
 */
export const NEW_EPOCH_SQL = 'lower(hex(randomblob(8)))';
