// A backend's lists (tools, resources, prompts, resource templates), read in parallel, only those
// its capabilities announce; a 2026-07-28 backend's cache hints go along for the hub's lists.
import type { Client } from '@modelcontextprotocol/client';
import { hintOf } from '../shared/cache-hint.ts';
import type { Inventory } from '../shared/messages/calls.ts';

/** `timeout` bounds each list request: connectionTimeout at connect, requestTimeout after. */
export async function readInventory(client: Client, timeout: number): Promise<Inventory> {
  const caps = client.getServerCapabilities() ?? {};
  // 'refresh': the client's response cache must not hide a change the backend announced.
  const options = { timeout, cacheMode: 'refresh' as const };
  const cacheHints: NonNullable<Inventory['cacheHints']> = {};
  // A 2026-07-28 backend says how long each list may be reused; the hub's aggregated lists follow it.
  const hinted = <T>(kind: keyof typeof cacheHints, result: Record<string, unknown>, items: T[]): T[] => {
    const hint = hintOf(result);
    if (hint) cacheHints[kind] = hint;
    return items;
  };
  const [tools, resources, prompts, resourceTemplates] = await Promise.all([
    caps.tools ? client.listTools(undefined, options).then((r) => hinted('tools', r, r.tools)) : [],
    caps.resources ? client.listResources(undefined, options).then((r) => hinted('resources', r, r.resources)) : [],
    caps.prompts ? client.listPrompts(undefined, options).then((r) => hinted('prompts', r, r.prompts)) : [],
    caps.resources ? client.listResourceTemplates(undefined, options).then((r) => hinted('resourceTemplates', r, r.resourceTemplates)) : [],
  ]);
  return { tools, resources, prompts, resourceTemplates, ...(Object.keys(cacheHints).length ? { cacheHints } : {}) };
}
