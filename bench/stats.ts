// Small helpers shared by the benchmarks: medians, timing loops, one JSON line per figure.

/** Median of a non-empty list. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Runs `fn` once to warm up, then `runs` times; returns each run's milliseconds. */
export async function timeRuns(runs: number, fn: () => Promise<unknown>): Promise<number[]> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await fn();
    times.push(performance.now() - started);
  }
  return times;
}

/** One benchmark figure; `target` and `ok` when the issue sets a target for it. */
export interface Figure {
  bench: string;
  name: string;
  value: number;
  unit: string;
  runs?: number;
  target?: string;
  ok?: boolean;
  note?: string;
}

export const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

/** Adds the target to a figure: `max` means "at most", `min` "at least". */
export function withTarget(figure: Figure, bound: { max?: number; min?: number }): Figure {
  const ok = (bound.max === undefined || figure.value <= bound.max) && (bound.min === undefined || figure.value >= bound.min);
  const target = bound.max !== undefined ? `≤ ${bound.max} ${figure.unit}` : `≥ ${bound.min} ${figure.unit}`;
  return { ...figure, target, ok };
}
