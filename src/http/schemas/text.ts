import { z } from 'zod';

/**
 * A text field: a string of `min`-`max` characters without U+0000, which PostgreSQL cannot store;
 * refusing it here keeps both engines alike.
 */
export function text(min: number, max: number) {
  return z
    .string()
    .min(min)
    .max(max)
    .refine((value) => !value.includes('\0'), 'must not contain U+0000');
}
