import { atIndex, DomainError } from '../domain/errors.js';

/**
 * Applies a change per input, in order, inside the caller's transaction; in a request of several a
 * refused entry is named by its index (`[3].title`), and the whole transaction rolls back.
 */
export async function applyEach<I, R>(
  inputs: readonly I[],
  many: boolean,
  apply: (input: I) => Promise<R>,
): Promise<R[]> {
  const stored: R[] = [];
  for (const [index, input] of inputs.entries()) {
    try {
      stored.push(await apply(input));
    } catch (error) {
      throw many && error instanceof DomainError ? atIndex(error, index) : error;
    }
  }
  return stored;
}
