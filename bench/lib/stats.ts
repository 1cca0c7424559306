/** Order statistics for benchmark samples. NaN samples (a figure a session could not take) are ignored. */

export interface Summary {
  n: number;
  median: number;
  p25: number;
  p75: number;
  min: number;
  max: number;
}

/** Linear interpolation between closest ranks (the "R-7" definition most tools use). */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  const a = sorted[lo] as number;
  const b = sorted[hi] as number;
  return a + (b - a) * (pos - lo);
}

export function median(values: readonly number[]): number {
  return quantile(finiteSorted(values), 0.5);
}

export function summarize(values: readonly number[]): Summary {
  const sorted = finiteSorted(values);
  return {
    n: sorted.length,
    median: quantile(sorted, 0.5),
    p25: quantile(sorted, 0.25),
    p75: quantile(sorted, 0.75),
    min: sorted[0] ?? Number.NaN,
    max: sorted[sorted.length - 1] ?? Number.NaN,
  };
}

function finiteSorted(values: readonly number[]): number[] {
  return values.filter(Number.isFinite).sort((a, b) => a - b);
}
