import { microsFromMillis, type Micros } from '../../domain/time.js';

/** The wall clock in Micros, for stamps; `nextUpdated` keeps record stamps increasing when it stalls. */
export function nowMicros(): Micros {
  return microsFromMillis(Date.now());
}
