// Delays between attempts. Pure, so the sequences are tested without timers.

/** decisions §6: attempt n (1-based) waits restartDelay × 2^min(n-1, 4): 1x, 2x, 4x, 8x, then 16x. */
export function restartDelay(attempt: number, baseMs: number): number {
  return baseMs * 2 ** Math.min(Math.max(attempt, 1) - 1, 4);
}

export const RECONNECT_BASE_MS = 1_000;
export const RECONNECT_MAX_MS = 30_000;

/** Remote backends: a fresh transport after 1 s, 2 s, 4 s ... capped at 30 s. */
export function reconnectDelay(attempt: number, baseMs = RECONNECT_BASE_MS, maxMs = RECONNECT_MAX_MS): number {
  return Math.min(maxMs, baseMs * 2 ** Math.min(Math.max(attempt, 1) - 1, 16));
}
