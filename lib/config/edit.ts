// Edits of mcp.json made by the CLI (`agent mcp tools disable|enable`): the change is made with
// jsonc-parser's `modify` + `applyEdits` so everything else in the file keeps its bytes (content,
// key order, indentation, line endings); a backup goes to `<configDir>/backups/` first, and the
// new text replaces the file atomically (temp file + rename beside the real file, through a
// symlink, keeping the file mode). Decisions §1; service.md "Tool filtering".
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { applyEdits, type Edit, type FormattingOptions, findNodeAtLocation, format, type JSONPath, modify, type Node, parseTree } from 'jsonc-parser';
import { SEPARATOR } from '../shared/names.ts';
import { isPlainObject } from '../shared/plain-object.ts';
import { formatProblem, jsonPath } from './errors.ts';
import { parseJsonStrict } from './parse-json.ts';

export type ToolAction = 'disable' | 'enable';
export type RulesSection = 'mcpServers' | 'mcpTemplates';

export type ConfigEditErrorCode =
  /** The server name is in neither mcpServers nor mcpTemplates (exit 1). */
  | 'unknown_server'
  /** An empty tool name (a usage error, exit 2). */
  | 'bad_tool_name'
  /** The file cannot be read, is not valid JSON, or the entry is not editable (exit 1). */
  | 'unreadable'
  | 'not_editable'
  /** Writing the backup or the file failed (exit 1). */
  | 'write_failed';

export class ConfigEditError extends Error {
  override readonly name = 'ConfigEditError';
  constructor(
    readonly code: ConfigEditErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
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

/**
 * Formatting options matching the file: tabs or the most common indentation step in spaces
 * (2 when nothing is indented), and its line ending.
 */
export function detectFormatting(text: string): FormattingOptions {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  let tabLines = 0;
  let spaceLines = 0;
  const steps = new Map<number, number>();
  let previous = 0;
  for (const line of text.split(/\r?\n/)) {
    const match = /^([ \t]*)\S/.exec(line);
    if (!match) continue;
    const indent = match[1]!;
    if (indent.startsWith('\t')) {
      tabLines++;
      continue;
    }
    if (indent.length) spaceLines++;
    const step = Math.abs(indent.length - previous);
    if (step) steps.set(step, (steps.get(step) ?? 0) + 1);
    previous = indent.length;
  }
  if (tabLines > spaceLines) return { insertSpaces: false, tabSize: 4, eol, insertFinalNewline: false };
  let best = 2;
  let bestCount = 0;
  for (const [step, count] of steps) {
    if (count > bestCount || (count === bestCount && step < best)) {
      best = step;
      bestCount = count;
    }
  }
  return { insertSpaces: true, tabSize: best, eol, insertFinalNewline: false };
}

const spansLines = (text: string, node: Node) => /[\r\n]/.test(text.slice(node.offset, node.offset + node.length));

/**
 * One `modify` at `at` (an insertion: a new property or a new array element at the end),
 * applied with `applyEdits`. The raw edit touches only the insertion point; the inserted text is
 * then laid out like its container: formatted with the file's indentation (jsonc-parser `format`
 * limited to the inserted range, so neighbouring lines keep their layout) when the container
 * spans lines, kept on one line otherwise.
 */
function insert(text: string, at: JSONPath, value: unknown, options: FormattingOptions): string {
  const root = parseTree(text);
  const container = root && findNodeAtLocation(root, at.slice(0, -1));
  if (!container) throw new Error(`no container at ${jsonPath(at.slice(0, -1) as PropertyKey[])}`);
  const edits = modify(text, at, value, { isArrayInsertion: typeof at[at.length - 1] === 'number' });
  if (edits.length !== 1 || edits[0]!.length !== 0) throw new Error('unexpected edit from jsonc-parser');
  const edit = edits[0]!;
  if (!spansLines(text, container)) {
    // `{"a": 1}` stays on one line, spaced like the document: `, ` or `,`, `": ` or `":`.
    let content = edit.content;
    if (/,\s/.test(text) && content.startsWith(',')) content = `, ${content.slice(1)}`;
    const key = at[at.length - 1];
    if (typeof key === 'string' && !/":\s/.test(text)) content = content.replace(`${JSON.stringify(key)}: `, `${JSON.stringify(key)}:`);
    return applyEdits(text, [{ ...edit, content }]);
  }
  const inserted = applyEdits(text, [edit]);
  // The range starts one character early so that the break after a bare `{` or `[` counts too.
  const layout = format(inserted, { offset: edit.offset - 1, length: edit.content.length + 1 }, options);
  // Only whitespace inside the inserted text: the lines around it keep their bytes.
  const inside = layout.filter((e) => e.offset >= edit.offset && e.offset + e.length <= edit.offset + edit.content.length);
  return applyEdits(inserted, inside);
}

/** Removes element `index` of the array at `at` with `modify` + `applyEdits`. */
function removeElement(text: string, at: JSONPath, index: number): string {
  const root = parseTree(text);
  const array = root && findNodeAtLocation(root, at);
  const children = array?.children ?? [];
  let edits: Edit[];
  if (children.length > 1 && index === children.length - 1) {
    // jsonc-parser 3.3.1 cuts the wrong range when removing the last of several elements
    // (microsoft/node-jsonc-parser#108: `["q", "r"]` becomes `["q""]`): remove from the end of
    // the previous element to the end of this one instead.
    const previous = children[index - 1]!;
    const last = children[index]!;
    edits = [{ offset: previous.offset + previous.length, length: last.offset + last.length - (previous.offset + previous.length), content: '' }];
  } else {
    edits = modify(text, [...at, index], undefined, {});
  }
  return applyEdits(text, edits);
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
  const options = detectFormatting(text);

  let next: string[];
  let edited: string;
  let added: string | undefined;
  let removed: string[] = [];
  if (action === 'disable') {
    if (list.includes(logical) || list.includes(qualified)) return { rules, tool: logical, removed };
    next = [...list, logical];
    added = logical;
    edited = current === undefined ? insert(text, at, [logical], options) : insert(text, [...at, -1], logical, options);
  } else {
    const indexes = list.flatMap((t, i) => (t === logical || t === qualified ? [i] : []));
    if (!indexes.length) return { rules, tool: logical, removed };
    removed = [...new Set(indexes.map((i) => list[i]!))];
    next = list.filter((t) => t !== logical && t !== qualified);
    edited = text;
    for (const index of indexes.reverse()) edited = removeElement(edited, at, index);
  }

  const check = parseJsonStrict(edited, file);
  const expected = structuredClone(parsed.value) as Record<string, Record<string, Record<string, unknown>>>;
  expected[rules.section]![server]!.disabledTools = next;
  if (!check.ok || !isDeepStrictEqual(check.value, expected)) {
    throw new ConfigEditError('not_editable', `Cannot edit ${file}: the edit of ${rules.path} did not produce the expected JSON; the file is left unchanged`);
  }
  return { rules, tool: logical, text: bom + edited, ...(added === undefined ? {} : { added }), removed };
}

export const BACKUP_DIR_NAME = 'backups';
export const BACKUPS_KEPT = 10;

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const stampOf = (now: Date) => now.toISOString().replace(/:/g, '-');

/** Backup names: `<file name>.<ISO time with - for :>[-<n>].bak`, e.g. `mcp.json.2026-05-01T10-20-30.123Z.bak`. */
function backupPattern(base: string): RegExp {
  return new RegExp(`^${escapeRegExp(base)}\\.(\\d{4}-\\d{2}-\\d{2}T\\d{2}-\\d{2}-\\d{2}\\.\\d{3}Z)(?:-(\\d+))?\\.bak$`);
}

/** The backups of `base` in `dir`, oldest first. */
export async function listBackups(dir: string, base: string): Promise<string[]> {
  const pattern = backupPattern(base);
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return names
    .flatMap((name) => {
      const m = pattern.exec(name);
      return m ? [{ name, stamp: m[1]!, seq: Number(m[2] ?? 0) }] : [];
    })
    .sort((a, b) => (a.stamp < b.stamp ? -1 : a.stamp > b.stamp ? 1 : a.seq - b.seq))
    .map((b) => path.join(dir, b.name));
}

/**
 * Copies `content` (the file as it is before the edit) to `<configDir>/backups/` under a
 * timestamped name with the file's mode, then deletes all but the newest `keep` backups of it.
 */
export async function backupConfig(file: string, configDir: string, content: Buffer, mode: number, now = new Date(), keep = BACKUPS_KEPT): Promise<string> {
  const dir = path.join(configDir, BACKUP_DIR_NAME);
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  const base = path.basename(file);
  let target = '';
  for (let seq = 0; ; seq++) {
    target = path.join(dir, `${base}.${stampOf(now)}${seq ? `-${seq}` : ''}.bak`);
    try {
      await fs.writeFile(target, content, { flag: 'wx', mode: mode & 0o777 });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || seq > 1000) throw error;
    }
  }
  await fs.chmod(target, mode & 0o777);
  const all = await listBackups(dir, base);
  for (const old of all.slice(0, Math.max(0, all.length - keep))) await fs.rm(old, { force: true });
  return target;
}

/**
 * Replaces the file's content atomically: a temp file in the directory of the real file (a
 * symlink is followed and stays a symlink), with the file's mode (and owner when permitted),
 * flushed, then renamed over it. `unchangedSince`, when given, must still be the file's
 * content just before the rename; otherwise nothing is replaced and false is returned.
 */
export async function writeFileAtomic(file: string, text: string, unchangedSince?: Buffer): Promise<boolean> {
  const real = await fs.realpath(file);
  const stat = await fs.stat(real);
  const tmp = path.join(path.dirname(real), `.${path.basename(real)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  let renamed = false;
  try {
    const handle = await fs.open(tmp, 'wx', stat.mode & 0o7777);
    try {
      await handle.chmod(stat.mode & 0o7777);
      if (process.getuid && (stat.uid !== process.getuid() || stat.gid !== process.getgid?.())) {
        await handle.chown(stat.uid, stat.gid).catch(() => undefined);
      }
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (unchangedSince && !(await fs.readFile(real)).equals(unchangedSince)) return false;
    await fs.rename(tmp, real);
    renamed = true;
    // Make the rename itself durable; not possible on every platform.
    const dir = await fs.open(path.dirname(real), 'r').catch(() => null);
    await dir?.sync().catch(() => undefined);
    await dir?.close();
    return true;
  } finally {
    if (!renamed) await fs.rm(tmp, { force: true });
  }
}

export type ToolEditOutcome = PlannedEdit & {
  changed: boolean;
  /** The backup written before the change (absent when nothing changed). */
  backup?: string;
};

export type ToolEditRequest = { file: string; configDir: string; server: string; tool: string; action: ToolAction; now?: () => Date; keepBackups?: number };

/**
 * Disables or enables a tool in mcp.json: reads the file, plans the edit, writes a backup and
 * replaces the file atomically. Nothing is written (no backup either) when the tool is already
 * in the requested state. A concurrent change of the file between read and rename is detected
 * and the edit is redone on the new content.
 */
export async function editToolState(request: ToolEditRequest): Promise<ToolEditOutcome> {
  const { file, configDir, server, tool, action } = request;
  for (let attempt = 0; ; attempt++) {
    let raw: Buffer;
    let mode: number;
    try {
      raw = await fs.readFile(file);
      mode = (await fs.stat(file)).mode;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new ConfigEditError('unreadable', `Cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (error as Error).message}`, { cause: error });
    }
    const plan = planToolEdit(raw.toString('utf8'), server, tool, action, file);
    if (plan.text === undefined) return { ...plan, changed: false };
    let backup: string;
    try {
      backup = await backupConfig(file, configDir, raw, mode, request.now?.() ?? new Date(), request.keepBackups ?? BACKUPS_KEPT);
    } catch (error) {
      throw new ConfigEditError('write_failed', `Cannot write a backup to ${path.join(configDir, BACKUP_DIR_NAME)}: ${(error as Error).message}; ${file} is left unchanged`, { cause: error });
    }
    let written: boolean;
    try {
      written = await writeFileAtomic(file, plan.text, raw);
    } catch (error) {
      throw new ConfigEditError('write_failed', `Cannot write ${file}: ${(error as Error).message}; it is left unchanged`, { cause: error });
    }
    if (written) return { ...plan, changed: true, backup };
    if (attempt >= 4) throw new ConfigEditError('write_failed', `${file} keeps changing while being edited; try again`);
  }
}
