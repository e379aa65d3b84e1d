/**
 * The opaque `cursor` of list answers: a change number, wrapped so that clients treat it as a
 * token and so that its form can change later behind the `c1.` prefix.
 */
const PREFIX = 'c1.';

export function encodeCursor(rev: number): string {
  return PREFIX + rev.toString(36);
}

/** The change number a cursor stands for, or undefined when the text is no cursor of ours. */
export function decodeCursor(text: string): number | undefined {
  if (!text.startsWith(PREFIX)) return undefined;
  const digits = text.slice(PREFIX.length);
  if (!/^[0-9a-z]{1,11}$/.test(digits)) return undefined;
  const rev = parseInt(digits, 36);
  return Number.isSafeInteger(rev) ? rev : undefined;
}
