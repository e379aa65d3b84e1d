import { engineRows } from '../auth/shapes.js';
import { POSTGRES_CODEC } from './codec.js';

/** The rows of sign-in (store/auth/rows.ts) as PostgreSQL writes and reads them: its codec, `$n` placeholders. */
export const POSTGRES_ROWS = engineRows(POSTGRES_CODEC, (position) => `$${position}`);
