// Cache hints of aggregated results (2026-07-28, issue 15): a list drawn from several backends
// may be kept as long as the shortest-lived of them allows, and is public only when every one
// said public and the list does not depend on who asks. A backend that gave no hint (a 2025
// one) counts as the protocol's default: ttlMs 0, private.
import type { CacheHint } from './messages/calls.ts';

export type { CacheHint };

export const NO_CACHE: Required<CacheHint> = { ttlMs: 0, cacheScope: 'private' };

/** Reads a result's own hint, if it carries a valid one. */
export function hintOf(result: Record<string, unknown>): CacheHint | undefined {
  const hint: CacheHint = {};
  if (typeof result.ttlMs === 'number' && Number.isSafeInteger(result.ttlMs) && result.ttlMs >= 0) hint.ttlMs = result.ttlMs;
  if (result.cacheScope === 'public' || result.cacheScope === 'private') hint.cacheScope = result.cacheScope;
  return hint.ttlMs === undefined && hint.cacheScope === undefined ? undefined : hint;
}

/**
 * The hint of a list merged from these sources (one entry per backend it draws from);
 * `shared` says the list is the same for every client that asks.
 */
export function aggregateHint(sources: (CacheHint | undefined)[], shared: boolean): Required<CacheHint> {
  if (sources.length === 0) return NO_CACHE;
  const ttlMs = Math.min(...sources.map((h) => h?.ttlMs ?? 0));
  const cacheScope = shared && sources.every((h) => h?.cacheScope === 'public') ? 'public' : 'private';
  return { ttlMs, cacheScope };
}
