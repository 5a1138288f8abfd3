// Small numeric helpers shared by the benchmark modules.

/** Nearest-rank percentile (p in 0..100) of unsorted samples; NaN for no samples. */
export function percentile(samples: ArrayLike<number>, p: number): number {
  const n = samples.length;
  if (!n) return Number.NaN;
  const sorted = Float64Array.from(samples).sort();
  return sorted[Math.min(n - 1, Math.max(0, Math.ceil((p / 100) * n) - 1))]!;
}

/** Summary of latency samples in ms: p50, p99, max. */
export function latencySummary(samples: ArrayLike<number>): { p50: number; p99: number; max: number } {
  if (!samples.length) return { p50: Number.NaN, p99: Number.NaN, max: Number.NaN };
  const sorted = Float64Array.from(samples).sort();
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
  return { p50: at(50), p99: at(99), max: sorted[sorted.length - 1]! };
}

export function mean(values: number[]): number {
  const finite = values.filter((v) => Number.isFinite(v));
  return finite.length ? finite.reduce((a, b) => a + b, 0) / finite.length : Number.NaN;
}

export function round(value: number, digits = 2): number {
  if (!Number.isFinite(value)) return value;
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
