import { z } from 'zod';

/** A UTF-16 surrogate not in a pair: JSON can carry one (`"\ud800"`), UTF-8 cannot. */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * A text field: a string of `min`-`max` characters without U+0000, which PostgreSQL cannot store,
 * and without lone surrogates, which each engine would replace differently; refusing both here
 * keeps both engines alike and text stored as sent.
 */
export function text(min: number, max: number) {
  return z
    .string()
    .min(min)
    .max(max)
    .refine((value) => !value.includes('\0'), 'must not contain U+0000')
    .refine((value) => !LONE_SURROGATE.test(value), 'must not contain a lone surrogate');
}
