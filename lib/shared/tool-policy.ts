// Per-server tool filtering and description overrides (service.md "Tool filtering"). Pure.
import type { Tool } from '@modelcontextprotocol/server';
import { qualify } from './names.ts';

export type ToolPolicy = { disabledTools: readonly string[]; toolDescriptionOverrides: Readonly<Record<string, string>> };

/** A denylist entry matches the logical (server-local) name or the qualified `<server>_agent_<tool>`. */
export function isToolDisabled(server: string, tool: string, policy: ToolPolicy): boolean {
  if (!policy.disabledTools.length) return false;
  const qualified = qualify(server, tool);
  return policy.disabledTools.some((entry) => entry === tool || entry === qualified);
}

/** The tool as clients see it: the override replaces only the description. */
export function withEffectiveDescription(server: string, tool: Tool, policy: ToolPolicy): Tool {
  const override = policy.toolDescriptionOverrides[tool.name] ?? policy.toolDescriptionOverrides[qualify(server, tool.name)];
  return override === undefined ? tool : { ...tool, description: override };
}
