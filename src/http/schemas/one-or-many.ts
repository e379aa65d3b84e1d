import { WireError } from '../wire/errors.js';

/** The most objects one array POST may carry (contract section 7). */
export const ARRAY_POST_MAX = 1000;

/** A POST body of one object or an array of them; an error inside the array names its index. */
export function readOneOrMany<T>(body: unknown, read: (item: unknown) => T): { inputs: T[]; asArray: boolean } {
  if (!Array.isArray(body)) {
    if (typeof body !== 'object' || body === null)
      throw WireError.invalidParameter('body', 'expected an object or an array');
    return { inputs: [read(body)], asArray: false };
  }
  if (body.length > ARRAY_POST_MAX) throw WireError.invalidParameter('body', `more than ${ARRAY_POST_MAX} entries`);
  const inputs = body.map((item: unknown, index: number) => {
    try {
      return read(item);
    } catch (error) {
      throw error instanceof WireError ? error.atIndex(index) : error;
    }
  });
  return { inputs, asArray: true };
}
