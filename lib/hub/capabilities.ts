// What the gateway tells a client it offers (issue 15): the union of what its backends offered at
// their last connect, and what the gateway adds on top (list_changed, because it announces every
// backend that comes and goes). A capability no backend offers is not advertised.
type Offered = Record<string, unknown> | null | undefined;
type Capability = Record<string, unknown>;

const isObject = (value: unknown): value is Capability => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The server capabilities of the gateway for the backends a client sees. */
export function mergedCapabilities(backends: Iterable<Offered>): Record<string, Capability> {
  const merged: Record<string, Capability> = {};
  for (const offered of backends) {
    if (!offered) continue;
    if (isObject(offered.tools)) merged.tools = { listChanged: true };
    if (isObject(offered.prompts)) merged.prompts = { listChanged: true };
    if (isObject(offered.resources)) {
      // Subscriptions are forwarded (reference-counted per backend URI): offered when any backend does.
      const subscribe = offered.resources.subscribe === true || merged.resources?.subscribe === true;
      merged.resources = { listChanged: true, ...(subscribe ? { subscribe: true } : {}) };
    }
    if (isObject(offered.completions)) merged.completions = {};
    if (isObject(offered.logging)) merged.logging = {};
  }
  return merged;
}
