import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import dotenv from 'dotenv';
import { findMalformedDotenvLine } from './dotenv-check.ts';
import { duplicateProblem, findDuplicateKeys, withDuplicates } from './duplicate-keys.ts';
import type { ConfigProblem } from './errors.ts';
import type { EnvSources } from './env.ts';
import { normalizeConfig } from './normalize.ts';
import { parseJsonStrict } from './parse-json.ts';
import type { ConfigLocation } from './paths.ts';
import type { LoadedConfig } from './types.ts';

export { EMPTY_CONFIG_TEXT, ensureConfigFile } from './ensure.ts';

export type LoadOutcome =
  /** `fingerprint` identifies the content of mcp.json and its `.env`, to skip no-op reloads. */
  | { ok: true; config: LoadedConfig; fingerprint: string }
  | { ok: false; problems: ConfigProblem[] };

function readFailure(file: string, error: unknown): ConfigProblem {
  const code = (error as NodeJS.ErrnoException).code ?? 'EIO';
  const what = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'a directory' : code;
  return { file, path: '', expected: 'a readable file', found: what };
}

// The Runtime Scope `.env` beside the effective mcp.json; a missing file is an empty scope.
export async function readRuntimeScope(configFile: string): Promise<{ ok: true; values: Record<string, string>; text: string } | { ok: false; problem: ConfigProblem }> {
  const file = path.join(path.dirname(configFile), '.env');
  try {
    const text = await fs.readFile(file, 'utf8');
    const malformed = findMalformedDotenvLine(text);
    if (malformed) return { ok: false, problem: { file, path: '', ...malformed } };
    return { ok: true, values: dotenv.parse(text), text };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { ok: true, values: {}, text: '' };
    return { ok: false, problem: readFailure(file, error) };
  }
}

// Reads, parses and validates (a missing file is unreadable here; only startup creates it) the configuration. Never throws for bad input: problems name the file.
export async function loadConfig(location: ConfigLocation, parentEnv: Record<string, string | undefined>, platform: NodeJS.Platform = process.platform): Promise<LoadOutcome> {
  let text: string;
  try {
    text = await fs.readFile(location.file, 'utf8');
  } catch (error) {
    return { ok: false, problems: [readFailure(location.file, error)] };
  }
  // Editors on Windows may save a byte-order mark; it is not part of the JSON.
  const json = text.replace(/^\uFEFF/, '');
  const parsed = parseJsonStrict(json, location.file);
  if (!parsed.ok) return { ok: false, problems: [parsed.problem] };
  const duplicates = findDuplicateKeys(json);
  // mcpServers written twice: the servers of the first would be dropped; the whole file is refused.
  const twice = duplicates.filter((d) => d.path.length === 0 && d.key === 'mcpServers');
  if (twice.length) return { ok: false, problems: twice.map((d) => duplicateProblem(location.file, d)!) };
  const scope = await readRuntimeScope(location.file);
  if (!scope.ok) return { ok: false, problems: [scope.problem] };
  const sources: EnvSources = { parent: parentEnv, runtimeScope: scope.values, platform };
  const result = normalizeConfig(parsed.value, location.file, location.dir, sources);
  if (!result.ok) return result;
  const fingerprint = createHash('sha256').update(text).update('\0').update(scope.text).digest('hex');
  return { ok: true, config: withDuplicates(result.config, duplicates), fingerprint };
}
