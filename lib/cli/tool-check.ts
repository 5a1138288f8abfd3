// `agent mcp tools disable`: is the tool one the backend has? Answered from the running
// service's live inventory (control op `tools`) when it serves this file and the backend is
// connected; otherwise the name cannot be checked and is recorded as given.
import type { ToolsResult } from '../control/protocol.ts';
import type { StatusView } from '../main/status-view.ts';
import { closestNames } from '../shared/closest.ts';
import { ask, type Target } from './target.ts';

export type ToolCheck =
  | { kind: 'known' }
  | { kind: 'unknown'; pid: number; tools: string[]; closest: string[] }
  | { kind: 'unchecked'; why: string };

/** `service` is the service answering for this configuration directory; `serves` whether it uses this file. */
export async function checkToolName(target: Target, service: StatusView | null, serves: boolean, server: string, logical: string): Promise<ToolCheck> {
  if (!service) return { kind: 'unchecked', why: 'no service is running' };
  if (!serves) return { kind: 'unchecked', why: `the running service uses ${service.configFile}` };
  const answer = await ask(target, 'tools', { server });
  if (answer.kind === 'none') return { kind: 'unchecked', why: 'no service is running' };
  if (answer.kind === 'error') return { kind: 'unchecked', why: answer.message };
  const result = answer.result as ToolsResult;
  if (result.status !== 'connected') return { kind: 'unchecked', why: `backend '${server}' is not connected (status ${result.status})` };
  const tools = result.tools.map((t) => t.name);
  return tools.includes(logical) ? { kind: 'known' } : { kind: 'unknown', pid: service.pid, tools, closest: closestNames(logical, tools) };
}

const inventory = (check: { tools: string[]; closest: string[] }) =>
  check.tools.length ? `${check.tools.length} tools; closest: ${check.closest.join(', ')}` : 'it has no tools';

/** The error for an unknown tool without --force (exit 1). */
export function unknownToolMessage(server: string, logical: string, check: Extract<ToolCheck, { kind: 'unknown' }>): string {
  return `Server '${server}' has no tool '${logical}' in the live inventory of the running service (pid ${check.pid}: ${inventory(check)}). Nothing was changed; --force records it in disabledTools anyway.`;
}

/** What the output adds after a change: a tool the backend lacks (--force, or enabled), or one that could not be checked. */
export function checkNote(server: string, logical: string, check: ToolCheck, action: 'disable' | 'enable' = 'disable'): string {
  if (action === 'enable') {
    return check.kind === 'unknown' ? `Note: '${logical}' is not a tool that server '${server}' has now (live inventory: ${inventory(check)}): no tool appears until the backend has one of that name.\n` : '';
  }
  if (check.kind === 'unknown') {
    return `Note: '${logical}' is not a tool that server '${server}' has now (live inventory: ${inventory(check)}); recorded anyway (--force): it hides a tool of that name if the backend gets one.\n`;
  }
  if (check.kind === 'unchecked') return `Note: '${logical}' could not be checked against a live inventory (${check.why}); it is recorded as given.\n`;
  return '';
}
