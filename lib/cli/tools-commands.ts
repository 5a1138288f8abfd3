// `agent mcp tools list|disable|enable` (service.md "Tool filtering", "Command-line operations").
// `list` shows the live inventory from the running service (control op `tools`), or the
// configured rules when no service runs; `disable` / `enable` edit mcp.json (lib/config/edit.ts),
// which a running service hot-reloads. Each returns the text to print and the exit code.
import fs from 'node:fs/promises';
import { qualify } from '../shared/names.ts';
import type { ToolsResult, ToolView } from '../control/protocol.ts';
import { editToolState, type ToolEditOutcome } from '../config/edit.ts';
import { ConfigEditError, findToolRules, logicalToolName, type ToolAction, type ToolRules, unknownServerMessage } from '../config/edit-plan.ts';
import { formatProblem } from '../config/errors.ts';
import { parseJsonStrict } from '../config/parse-json.ts';
import type { ConfigLocation } from '../config/paths.ts';
import type { StatusView } from '../main/status-view.ts';
import { Code, EXIT_OK, EXIT_RUNTIME } from '../shared/errors.ts';
import { type CommandResult, failure, noted, usage } from './mcp-commands.ts';
import { type Answer, ask, findTarget, type LocationFlags, type Target } from './target.ts';
import { table } from './table.ts';
import { checkNote, checkToolName, type ToolCheck, unknownToolMessage } from './tool-check.ts';

export type ToolsListFlags = LocationFlags & { disabled?: boolean; json?: boolean };

/** One line, at most `max` characters. */
function oneLine(text: string | null, max = 100): string {
  if (text === null || !text.trim()) return '-';
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

type ConfiguredRules = { ok: true; rules: ToolRules } | { ok: false; message: string; unknown: boolean };

/** The tool rules of `server` as the configuration file states them (templates first). */
async function configuredRules(location: ConfigLocation, server: string): Promise<ConfiguredRules> {
  let text: string;
  try {
    text = await fs.readFile(location.file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { ok: false, unknown: false, message: `cannot read ${location.file}: ${code === 'ENOENT' ? 'no such file' : (error as Error).message}` };
  }
  const parsed = parseJsonStrict(text.replace(/^\uFEFF/, ''), location.file);
  if (!parsed.ok) return { ok: false, unknown: false, message: formatProblem(parsed.problem) };
  const rules = findToolRules(parsed.value, server);
  if (!rules) return { ok: false, unknown: true, message: unknownServerMessage(parsed.value, server, location.file) };
  return { ok: true, rules };
}

function rulesText(rules: ToolRules, onlyDisabled: boolean): string {
  const lines = [`Disabled tools (${rules.path}):`];
  lines.push(...(rules.disabledTools.length ? rules.disabledTools.map((t) => `  ${t}`) : ['  (none)']));
  if (!onlyDisabled) {
    lines.push(`Description overrides (${rules.path.replace(/disabledTools$/, 'toolDescriptionOverrides')}):`);
    const overrides = Object.entries(rules.toolDescriptionOverrides);
    lines.push(...(overrides.length ? overrides.map(([t, d]) => `  ${t}: ${oneLine(d)}`) : ['  (none)']));
  }
  if (rules.section === 'mcpTemplates') {
    lines.push(`mcpTemplates.${rules.server} is a template (not served by this version)${rules.shadowedServerEntry ? `; it is authoritative over mcpServers.${rules.server}, whose rules are not used` : ''}.`);
  }
  return `${lines.join('\n')}\n`;
}

function rulesJson(rules: ToolRules, onlyDisabled: boolean) {
  return {
    section: rules.section,
    disabledTools: rules.disabledTools,
    ...(onlyDisabled ? {} : { toolDescriptionOverrides: rules.toolDescriptionOverrides }),
    shadowedServerEntry: rules.shadowedServerEntry,
  };
}

/** The configured view: no live inventory, labelled as such (exit 0). */
async function configuredList(location: ConfigLocation, server: string, flags: ToolsListFlags, label: string): Promise<CommandResult> {
  const found = await configuredRules(location, server);
  if (!found.ok) return { code: EXIT_RUNTIME, stdout: '', stderr: `agent: ${found.unknown ? found.message : `${label} The configuration cannot be read either: ${found.message}`}\n` };
  const onlyDisabled = flags.disabled === true;
  if (flags.json) {
    return { code: EXIT_OK, stdout: `${JSON.stringify({ live: false, reason: label, configFile: location.file, server, ...rulesJson(found.rules, onlyDisabled) }, null, 2)}\n`, stderr: '' };
  }
  return {
    code: EXIT_OK,
    stdout: `${label}\nConfigured tool rules of '${server}' in ${location.file} (no live inventory):\n${rulesText(found.rules, onlyDisabled)}`,
    stderr: '',
  };
}

function liveRows(tools: ToolView[]): string {
  const rows = [['NAME', 'STATE', 'DESCRIPTION']];
  for (const t of tools) rows.push([t.name, t.enabled ? 'enabled' : 'DISABLED', `${oneLine(t.description)}${t.overridden ? '  [overridden]' : ''}`]);
  return table(rows);
}

async function liveList(location: ConfigLocation, result: ToolsResult, flags: ToolsListFlags): Promise<CommandResult> {
  const onlyDisabled = flags.disabled === true;
  const tools = onlyDisabled ? result.tools.filter((t) => !t.enabled) : result.tools;
  if (flags.json) return { code: EXIT_OK, stdout: `${JSON.stringify({ live: true, ...result, tools }, null, 2)}\n`, stderr: '' };
  const disabled = result.tools.filter((t) => !t.enabled).length;
  const lines: string[] = [];
  lines.push(`Live tools of '${result.server}' (status ${result.status}) from the running service: ${result.tools.length} tools, ${result.tools.length - disabled} enabled, ${disabled} disabled`);
  let out = `${lines.join('\n')}\n`;
  if (tools.length) out += liveRows(tools);
  else if (result.tools.length) out += '(no disabled tools)\n';
  else out += `(no tool inventory observed yet; status ${result.status})\n`;
  const overridden = tools.filter((t) => t.overridden);
  if (overridden.length && !onlyDisabled) {
    out += `Overridden descriptions (toolDescriptionOverrides; upstream text):\n${overridden.map((t) => `  ${t.name}: ${oneLine(t.upstreamDescription)}`).join('\n')}\n`;
  }
  if (result.unresolved.length) out += `Unresolved disabledTools entries (no observed tool of that name): ${result.unresolved.join(', ')}\n`;
  if (!result.tools.length) {
    // Nothing observed: at least say what the configuration asks for.
    const found = await configuredRules(location, result.server);
    if (found.ok) out += `Configured in ${location.file}:\n${rulesText(found.rules, onlyDisabled)}`;
  }
  return { code: EXIT_OK, stdout: out, stderr: '' };
}

/** `agent mcp tools list <server> [--disabled] [--json]`. */
export async function toolsListCommand(server: string, flags: ToolsListFlags): Promise<CommandResult> {
  const target = await findTarget(flags);
  return noted(target, await list(target, server, flags));
}

async function list(target: Target, server: string, flags: ToolsListFlags): Promise<CommandResult> {
  const { location } = target;
  const answer: Answer = await ask(target, 'tools', { server });
  if (answer.kind === 'ok') return liveList(location, answer.result as ToolsResult, flags);
  if (answer.kind === 'none') return configuredList(location, server, flags, 'Service not running.');
  // The service runs but has no live backend of that name: disabled, a template (not served),
  // or not (yet) in the configuration it loaded. The file decides whether the name exists.
  if (answer.code === Code.not_running) return configuredList(location, server, flags, `Server '${server}' is disabled in the running service: no live inventory.`);
  if (answer.code === Code.unknown_server) return configuredList(location, server, flags, `The running service has no backend '${server}' (not served, or not loaded yet): no live inventory.`);
  return failure(answer);
}

async function runningService(target: Target): Promise<StatusView | null> {
  const answer = await ask(target, 'status', {});
  return answer.kind === 'ok' ? (answer.result as StatusView) : null;
}

async function sameFile(a: string, b: string): Promise<boolean> {
  const real = async (p: string) => fs.realpath(p).catch(() => p);
  return (await real(a)) === (await real(b));
}

function changeText(outcome: ToolEditOutcome, action: ToolAction, file: string): string {
  const { rules, tool } = outcome;
  const lines: string[] = [];
  if (!outcome.changed) {
    lines.push(
      action === 'disable'
        ? `Tool '${tool}' of server '${rules.server}' is already disabled (${rules.path} in ${file}); nothing changed.`
        : `Tool '${tool}' of server '${rules.server}' is already enabled (not in ${rules.path} in ${file}); nothing changed.`,
    );
  } else if (action === 'disable') {
    lines.push(`Disabled tool '${tool}' of server '${rules.server}': added ${JSON.stringify(outcome.added)} to ${rules.path} in ${file}.`);
  } else {
    lines.push(`Enabled tool '${tool}' of server '${rules.server}': removed ${outcome.removed.map((t) => JSON.stringify(t)).join(' and ')} from ${rules.path} in ${file}.`);
  }
  if (rules.shadowedServerEntry) lines.push(`mcpServers.${rules.server}.disabledTools is left unchanged: mcpTemplates.${rules.server} is authoritative for that name.`);
  if (outcome.backup) lines.push(`Backup of the previous file: ${outcome.backup}`);
  return `${lines.join('\n')}\n`;
}

export type ToolsEditFlags = LocationFlags & { force?: boolean };

/**
 * `agent mcp tools disable|enable <server> <tool>`: edits mcp.json; works with or without a
 * running service. Disabling a tool the connected backend does not have is refused without --force.
 */
export async function toolsEditCommand(action: ToolAction, server: string, tool: string, flags: ToolsEditFlags): Promise<CommandResult> {
  const target = await findTarget(flags);
  return noted(target, await edit(target, action, server, tool, flags.force === true));
}

async function edit(target: Target, action: ToolAction, server: string, tool: string, force: boolean): Promise<CommandResult> {
  const { location } = target;
  const service = await runningService(target);
  const serves = service !== null && (await sameFile(service.configFile, location.file));
  let check: ToolCheck = { kind: 'known' };
  let outcome: ToolEditOutcome;
  try {
    if (action === 'disable') {
      const logical = logicalToolName(server, tool);
      check = await checkToolName(target, service, serves, server, logical);
      if (check.kind === 'unknown' && !force) return { code: EXIT_RUNTIME, stdout: '', stderr: `agent: ${unknownToolMessage(server, logical, check)}\n` };
    }
    outcome = await editToolState({ file: location.file, stateDir: target.stateDir, server, tool, action });
  } catch (error) {
    if (!(error instanceof ConfigEditError)) throw error;
    if (error.code === Code.bad_tool_name) return usage(`${error.message}: agent mcp tools ${action} <server> <tool>`, `agent mcp tools ${action} --help`);
    return failure(error);
  }
  let out = changeText(outcome, action, location.file);
  if (!outcome.changed) return { code: EXIT_OK, stdout: out, stderr: '' };
  // An enabled name the backend does not have (a rule left by --force, a typo): say so, nothing reappears.
  if (action === 'enable') check = await checkToolName(target, service, serves, server, outcome.tool);
  out += checkNote(server, outcome.tool, check, action);
  const qualified = qualify(server, outcome.tool);
  if (!service) {
    // Named by where it was looked for: a service of this file with another state directory is not seen here.
    out += `No service answers for ${location.file} on ${target.socket}: the change applies when \`agent serve\` starts (a service started with another --state-dir picks it up by hot reload).\n`;
  } else if (!serves) {
    out += `Note: the service running for ${location.dir} (pid ${service.pid}) uses ${service.configFile}, not this file; it does not see this change.\n`;
  } else if (outcome.rules.section === 'mcpTemplates') {
    out += `Templates are not served by this version: the rule is stored on mcpTemplates.${server} for its instances.\n`;
  } else {
    out +=
      `The running service (pid ${service.pid}) picks the change up by hot reload: connected clients get tools/list_changed and ` +
      `${action === 'disable' ? `no longer see ${qualified}` : check.kind === 'unknown' ? `see no new tool` : `see ${qualified} again`}, without a restart of the backend. ` +
      `(A service started with --no-reload needs \`agent mcp reload\`.)\n`;
  }
  return { code: EXIT_OK, stdout: out, stderr: '' };
}
