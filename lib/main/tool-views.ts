// The tool inventory of one backend as operators see it: upstream and effective descriptions,
// enabled marks, and disabledTools entries that name no observed tool. Pure.
import { qualify } from '../shared/names.ts';
import { isToolDisabled, withEffectiveDescription } from '../shared/tool-policy.ts';
import type { ToolsResult, ToolView } from '../control/protocol.ts';
import type { BackendState } from '../shared/backend-state.ts';
import type { Inventory } from '../shared/messages/calls.ts';
import { serverStatus } from '../shared/status.ts';

export function toolViews(b: BackendState, inventory: Inventory | null): ToolsResult {
  const tools: ToolView[] = (inventory?.tools ?? []).map((tool) => {
    const effective = withEffectiveDescription(b.name, tool, b.toolPolicy);
    return {
      name: tool.name,
      qualifiedName: qualify(b.name, tool.name),
      upstreamDescription: tool.description ?? null,
      description: effective.description ?? null,
      enabled: !isToolDisabled(b.name, tool.name, b.toolPolicy),
      overridden: effective !== tool,
    };
  });
  const observed = new Set(tools.flatMap((t) => [t.name, t.qualifiedName]));
  const unresolved = inventory ? b.toolPolicy.disabledTools.filter((entry) => !observed.has(entry)) : [];
  return { server: b.name, status: serverStatus(b), tools, unresolved };
}
