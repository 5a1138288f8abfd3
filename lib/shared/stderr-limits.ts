// The limits of a backend's stderr capture (decisions §7; tunable per decisions §2): the
// defaults, the ranges mcp.json and the `agent serve` flags accept, and how the layers combine.
// Pure and tiny: the main thread, the config worker and the backend workers all use it.

export type StderrLimits = {
  /** Lines are cut at this many bytes (marked truncated). */
  lineBytes: number;
  /** Distinct lines logged per window. */
  linesPerWindow: number;
  windowSeconds: number;
  /** Repeated-line and suppressed-line summaries come at most this often. */
  summaryIntervalSeconds: number;
  /** Above this many queued bytes the child's stderr is paused; it resumes below half of it. */
  queueHighWaterBytes: number;
};

export const STDERR_LIMIT_KEYS = ['lineBytes', 'linesPerWindow', 'windowSeconds', 'summaryIntervalSeconds', 'queueHighWaterBytes'] as const satisfies readonly (keyof StderrLimits)[];

/** The spec's values (service.md, Limits). */
export const DEFAULT_STDERR_LIMITS: Readonly<StderrLimits> = Object.freeze({
  lineBytes: 8 * 1024,
  linesPerWindow: 20,
  windowSeconds: 10,
  summaryIntervalSeconds: 5,
  queueHighWaterBytes: 1024 * 1024,
});

/** Largest accepted value of each limit (the smallest is 1): beyond these a value is a typo, not a tuning. */
export const STDERR_LIMIT_MAX: Readonly<StderrLimits> = Object.freeze({
  lineBytes: 1024 * 1024,
  linesPerWindow: 1_000_000,
  windowSeconds: 3_600,
  summaryIntervalSeconds: 3_600,
  queueHighWaterBytes: 64 * 1024 * 1024,
});

/** The effective limits: each key from the first layer that sets it, else the default. Layers go most specific first. */
export function resolveStderrLimits(...layers: (Partial<StderrLimits> | undefined)[]): StderrLimits {
  const limits: StderrLimits = { ...DEFAULT_STDERR_LIMITS };
  for (const key of STDERR_LIMIT_KEYS) {
    const layer = layers.find((l) => l?.[key] !== undefined);
    if (layer) limits[key] = layer[key]!;
  }
  return limits;
}
