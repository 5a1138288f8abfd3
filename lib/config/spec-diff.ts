import { isDeepStrictEqual } from 'node:util';
import type { BackendSpec } from './types.ts';

// Keys that change what clients see of a backend, or how its stderr is logged, but not the
// backend itself: applied without a restart (stderrLimits by the running worker's capture).
export const METADATA_KEYS = ['tags', 'disabledTools', 'toolDescriptionOverrides', 'stderrLimits'] as const;

export type SpecChange = 'none' | 'metadata' | 'restart';

const ownNice = (spec: BackendSpec) => (spec.type === 'stdio' ? (spec.nice ?? 0) : 0);

/**
 * How a backend must react to its new effective configuration. Pure. `niceOf`: the priority a
 * spec runs at (the service raises a `nice` below its --worker-nice, lib/main/backend-nice.ts):
 * a `nice` that changes but runs at the same value restarts nothing.
 */
export function specChange(before: BackendSpec, after: BackendSpec, niceOf: (spec: BackendSpec) => number = ownNice): SpecChange {
  if (isDeepStrictEqual(before, after)) return 'none';
  const strip = (spec: BackendSpec) => {
    const copy: Record<string, unknown> = { ...spec };
    for (const key of METADATA_KEYS) delete copy[key];
    if (spec.type === 'stdio') copy.nice = niceOf(spec);
    return copy;
  };
  return isDeepStrictEqual(strip(before), strip(after)) ? 'metadata' : 'restart';
}

// Derived by the service, not keys of mcp.json: a change shows in the keys they come from.
const DERIVED_KEYS = new Set(['referencedSecrets']);
// Groups of mcp.json keys in the spec: a change is named by the keys inside.
const GROUPED_KEYS = new Set(['supervision']);

function differing(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((key) => !isDeepStrictEqual(a[key], b[key]));
}

/** The mcp.json keys whose values differ, for a log line (names only: values may be secrets). Pure. */
export function changedKeys(before: BackendSpec, after: BackendSpec): string[] {
  const a = before as Record<string, unknown>;
  const b = after as Record<string, unknown>;
  return differing(a, b)
    .filter((key) => !DERIVED_KEYS.has(key))
    .flatMap((key) => (GROUPED_KEYS.has(key) ? differing((a[key] ?? {}) as Record<string, unknown>, (b[key] ?? {}) as Record<string, unknown>) : [key]))
    .sort();
}
