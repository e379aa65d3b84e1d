/** Records per list batch on every engine: large enough to amortize the calls, small enough to stream. */
export const LIST_BATCH_SIZE = 500;
