// What the gateway tells a client it offers (issue 15): the union of what its backends offered at
// their last connect, and what the gateway adds on top (list_changed, because it announces every
// backend that comes and goes). A capability no backend offers is not advertised.
type Offered = Record<string, unknown> | null | undefined;
import { isPlainObject } from '../shared/plain-object.ts';
import { TASKS_EXTENSION } from './tasks.ts';

type Capability = Record<string, unknown>;


/** The server capabilities of the gateway for the backends a client sees. */
export function mergedCapabilities(backends: Iterable<Offered>): Record<string, Capability> {
  const merged: Record<string, Capability> = {};
  for (const offered of backends) {
    if (!offered) continue;
    if (isPlainObject(offered.tools)) merged.tools = { listChanged: true };
    if (isPlainObject(offered.prompts)) merged.prompts = { listChanged: true };
    if (isPlainObject(offered.resources)) {
      // Subscriptions are forwarded (reference-counted per backend URI): offered when any backend does.
      const subscribe = offered.resources.subscribe === true || merged.resources?.subscribe === true;
      merged.resources = { listChanged: true, ...(subscribe ? { subscribe: true } : {}) };
    }
    if (isPlainObject(offered.completions)) merged.completions = {};
    // Tasks of tool calls: a 2025 backend's (in core) reach 2025 clients as they are and
    // 2026-07-28 clients through the extension (a 2026-07-28 backend's are not passed on: tasks.ts).
    const tasks = offered.tasks;
    if (isPlainObject(tasks) && isPlainObject(tasks.requests) && isPlainObject(tasks.requests.tools) && isPlainObject(tasks.requests.tools.call)) {
      merged.tasks = { ...(merged.tasks ?? {}), ...(isPlainObject(tasks.list) ? { list: {} } : {}), ...(isPlainObject(tasks.cancel) ? { cancel: {} } : {}), requests: { tools: { call: {} } } };
      merged.extensions = { ...(merged.extensions ?? {}), [TASKS_EXTENSION]: {} };
    }
    if (isPlainObject(offered.logging)) merged.logging = {};
  }
  return merged;
}
