// "Did you mean": the known names nearest to a misspelt one (tool names, config keys).

/** Known names nearest to `name` by edit distance (at most `count`), for "did you mean" messages. */
export function closestNames(name: string, known: readonly string[], count = 3): string[] {
  const wanted = name.toLowerCase();
  return known
    .map((k) => ({ k, d: editDistance(wanted, k.toLowerCase()) - (k.toLowerCase().includes(wanted) || wanted.includes(k.toLowerCase()) ? 2 : 0) }))
    .sort((x, y) => x.d - y.d || x.k.localeCompare(y.k))
    .slice(0, count)
    .map((x) => x.k);
}

/** Levenshtein distance; inputs are short names, so the O(n·m) table is tiny. */
function editDistance(a: string, b: string): number {
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
