/** The edit distance of two short words (insertions, deletions, substitutions). */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** The candidate nearest to `word` when it is a near miss (a typo), otherwise undefined. */
export function nearMiss(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const found = distance(word, candidate);
    if (found < bestDistance) {
      best = candidate;
      bestDistance = found;
    }
  }
  // One edit in a short word, two (a swapped pair of letters) from four letters, three from eight.
  const allowed = word.length < 4 ? 1 : word.length < 8 ? 2 : 3;
  return bestDistance <= allowed ? best : undefined;
}
