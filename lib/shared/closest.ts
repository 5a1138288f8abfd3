// "Did you mean": the candidates nearest to a name by edit distance. Pure.

/** Levenshtein distance (insertions, deletions, substitutions), case-sensitive. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** Up to `max` candidates nearest to `name` (case-insensitive distance; ties in alphabetical order). */
export function closestNames(name: string, candidates: readonly string[], max = 3): string[] {
  const wanted = name.toLowerCase();
  return [...new Set(candidates)]
    .map((candidate) => ({ candidate, distance: editDistance(wanted, candidate.toLowerCase()) }))
    .sort((x, y) => x.distance - y.distance || (x.candidate < y.candidate ? -1 : x.candidate > y.candidate ? 1 : 0))
    .slice(0, max)
    .map((c) => c.candidate);
}
