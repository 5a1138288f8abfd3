// The planned edit of mcp.json for `agent mcp tools disable|enable` (pure): which section holds
// the server's tool rules, the tool's logical name, and the new text, checked to differ from the
// old document only in that disabledTools array. Decisions §1; service.md "Tool filtering".
import { isDeepStrictEqual } from 'node:util';
import type { JSONPath } from 'jsonc-parser';
import { SEPARATOR } from '../shared/names.ts';
import { isPlainObject } from '../shared/plain-object.ts';
import { formatProblem, jsonPath } from './errors.ts';
import { duplicatePath, findDuplicateKeys } from './duplicate-keys.ts';
import { detectFormatting, insert, removeElement } from './json-text-edit.ts';
import { parseJsonStrict } from './parse-json.ts';
import { AgentError, type ErrorCode } from '../shared/errors.ts';

export type ToolAction = 'disable' | 'enable';
export type RulesSection = 'mcpServers' | 'mcpTemplates';

/** Codes of the catalogue (lib/shared/errors.ts) an edit fails with. */
export type ConfigEditErrorCode = Extract<ErrorCode, 'unknown_server' | 'bad_tool_name' | 'unreadable' | 'not_editable' | 'write_failed'>;

/** An edit of mcp.json that cannot be made; `code` says why, `exitCode(code)` what the CLI exits with. */
export class ConfigEditError extends AgentError {
  override readonly name = 'ConfigEditError';
  constructor(code: ConfigEditErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

/** Where a server's tool rules live, and what they say. */
export type ToolRules = {
  server: string;
  /** mcpTemplates when the name is a template (authoritative over a same-named mcpServers entry). */
  section: RulesSection;
  /** The JSON path of the disabledTools array, e.g. `mcpServers.alpha.disabledTools`. */
  path: string;
  disabledTools: string[];
  toolDescriptionOverrides: Record<string, string>;
  /** The name is in both sections: the mcpServers entry is stale (not served, never edited). */
  shadowedServerEntry: boolean;
};

/**
 * The tool rules of `server` in a parsed mcp.json, or null when no section names it. Entries of
 * the wrong type read as empty here; `planToolEdit` refuses to edit them.
 */
export function findToolRules(root: unknown, server: string): ToolRules | null {
  if (!isPlainObject(root)) return null;
  const templates = isPlainObject(root.mcpTemplates) ? root.mcpTemplates : {};
  const servers = isPlainObject(root.mcpServers) ? root.mcpServers : {};
  const inTemplates = Object.hasOwn(templates, server);
  const inServers = Object.hasOwn(servers, server);
  if (!inTemplates && !inServers) return null;
  const section: RulesSection = inTemplates ? 'mcpTemplates' : 'mcpServers';
  const entry = inTemplates ? templates[server] : servers[server];
  const disabled = isPlainObject(entry) && Array.isArray(entry.disabledTools) ? entry.disabledTools.filter((t): t is string => typeof t === 'string') : [];
  const overrides: Record<string, string> = {};
  if (isPlainObject(entry) && isPlainObject(entry.toolDescriptionOverrides)) {
    for (const [key, value] of Object.entries(entry.toolDescriptionOverrides)) if (typeof value === 'string') overrides[key] = value;
  }
  return {
    server,
    section,
    path: jsonPath([section, server, 'disabledTools']),
    disabledTools: disabled,
    toolDescriptionOverrides: overrides,
    shadowedServerEntry: inTemplates && inServers,
  };
}

/** Names the file and the servers it does have. */
export function unknownServerMessage(root: unknown, server: string, file: string): string {
  const names = isPlainObject(root) ? [root.mcpServers, root.mcpTemplates].flatMap((s) => (isPlainObject(s) ? Object.keys(s) : [])) : [];
  const known = [...new Set(names)].sort();
  return `Server '${server}' not found in ${file} (neither in mcpServers nor in mcpTemplates; ${known.length ? `configured: ${known.join(', ')}` : 'no servers are configured'})`;
}

/**
 * The logical (server-local) name of a tool given on the command line: a qualified
 * `<server>_agent_<tool>` of this server is reduced to `<tool>`; anything else is taken as is.
 */
export function logicalToolName(server: string, tool: string): string {
  const trimmed = tool.trim();
  const prefix = `${server}${SEPARATOR}`;
  const logical = trimmed.startsWith(prefix) ? trimmed.slice(prefix.length) : trimmed;
  if (!logical) throw new ConfigEditError('bad_tool_name', tool.trim() ? `The tool name ${JSON.stringify(tool)} names no tool after the \`${prefix}\` prefix` : 'The tool name is empty');
  return logical;
}

// An edit jsonc-parser could not make as planned is refused with the catalogue's code, not thrown as a bug.
function textEdit(file: string, path: string, edit: () => string): string {
  try {
    return edit();
  } catch (error) {
    throw new ConfigEditError('not_editable', `Cannot edit ${file}: the edit of ${path} could not be made (${(error as Error).message}); the file is left unchanged`, { cause: error });
  }
}

export type PlannedEdit = {
  rules: ToolRules;
  /** The logical tool name. */
  tool: string;
  /** Absent when nothing changes: the tool is already disabled / enabled. */
  text?: string;
  /** The entry added to disabledTools (disable). */
  added?: string;
  /** The entries removed from disabledTools (enable): the logical and/or the qualified name. */
  removed: string[];
};

// The refusal of an edit through a key written twice.
function writtenTwice(file: string, twice: ReturnType<typeof findDuplicateKeys>[number]): ConfigEditError {
  return new ConfigEditError(
    'not_editable',
    `Cannot edit ${file}: the key ${JSON.stringify(twice.key)} is written twice at ${duplicatePath(twice)} (lines ${twice.first} and ${twice.line}); JSON readers use the last one and ignore the other: remove or rename one of them first`,
  );
}

/**
 * The new text of mcp.json after disabling or enabling `tool` of `server` (pure). Throws
 * `ConfigEditError`: unknown server, empty tool name, a file or entry that cannot be edited.
 * The result is checked: it must parse as strict JSON and equal the old document with only
 * that disabledTools array changed.
 */
export function planToolEdit(original: string, server: string, tool: string, action: ToolAction, file = 'mcp.json'): PlannedEdit {
  const bom = original.startsWith('\uFEFF') ? '\uFEFF' : '';
  const text = original.slice(bom.length);
  const parsed = parseJsonStrict(text, file);
  if (!parsed.ok) throw new ConfigEditError('unreadable', `Cannot edit ${file}: ${formatProblem(parsed.problem)}`);
  const duplicates = findDuplicateKeys(text);
  // A section written twice: its first servers are not what the service reads (nor the unknown-server check).
  const sectionTwice = duplicates.find((d) => d.path.length === 0 && (d.key === 'mcpServers' || d.key === 'mcpTemplates'));
  if (sectionTwice) throw writtenTwice(file, sectionTwice);
  const rules = findToolRules(parsed.value, server);
  if (!rules) throw new ConfigEditError('unknown_server', unknownServerMessage(parsed.value, server, file));
  const logical = logicalToolName(server, tool);
  const qualified = `${server}${SEPARATOR}${logical}`;
  const root = parsed.value as Record<string, Record<string, unknown>>;
  const entry = root[rules.section]![server];
  if (!isPlainObject(entry)) throw new ConfigEditError('not_editable', `Cannot edit ${file}: ${jsonPath([rules.section, server])} is not an object`);
  const current = entry.disabledTools;
  if (current !== undefined && !(Array.isArray(current) && current.every((t) => typeof t === 'string'))) {
    throw new ConfigEditError('not_editable', `Cannot edit ${file}: ${rules.path} is not an array of tool names; fix it by hand first`);
  }
  const list = (current ?? []) as string[];
  const at: JSONPath = [rules.section, server, 'disabledTools'];
  // A key written twice on the way to the array: the reader keeps the last, the edit would find the first.
  const twice = duplicates.find((d) => [...d.path, d.key].every((segment, i) => segment === at[i]));
  if (twice) throw writtenTwice(file, twice);
  const options = detectFormatting(text);

  let next: string[];
  let edited: string;
  let added: string | undefined;
  let removed: string[] = [];
  if (action === 'disable') {
    if (list.includes(logical) || list.includes(qualified)) return { rules, tool: logical, removed };
    next = [...list, logical];
    added = logical;
    edited = textEdit(file, rules.path, () => (current === undefined ? insert(text, at, [logical], options) : insert(text, [...at, -1], logical, options)));
  } else {
    const indexes = list.flatMap((t, i) => (t === logical || t === qualified ? [i] : []));
    if (!indexes.length) return { rules, tool: logical, removed };
    removed = [...new Set(indexes.map((i) => list[i]!))];
    next = list.filter((t) => t !== logical && t !== qualified);
    edited = text;
    for (const index of indexes.reverse()) edited = textEdit(file, rules.path, () => removeElement(edited, at, index));
  }

  const check = parseJsonStrict(edited, file);
  const expected = structuredClone(parsed.value) as Record<string, Record<string, Record<string, unknown>>>;
  expected[rules.section]![server]!.disabledTools = next;
  if (!check.ok || !isDeepStrictEqual(check.value, expected)) {
    throw new ConfigEditError('not_editable', `Cannot edit ${file}: the edit of ${rules.path} did not produce the expected JSON; the file is left unchanged`);
  }
  return { rules, tool: logical, text: bom + edited, ...(added === undefined ? {} : { added }), removed };
}
