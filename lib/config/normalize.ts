import { z } from 'zod';
import { type ConfigProblem, describeValue, jsonPath, problemsFromZod } from './errors.ts';
import { unknownKeys } from './unknown-keys.ts';
import { buildChildEnv, type EnvSources, substitute, UndefinedVariableError } from './env.ts';
import { isSecretName } from '../shared/secret-values.ts';
import { mergeServerDefaults } from './merge.ts';
import {
  HEADER_VALUE,
  HEADER_VALUE_EXPECTED,
  KNOWN_DEFAULTS_KEYS,
  KNOWN_SERVER_KEYS,
  KNOWN_TOP_LEVEL_KEYS,
  SERVER_NAME_PATTERN,
  type ServerDefaults,
  serverDefaultsSchema,
  type ServerEntry,
  serverEntrySchema,
} from './schema.ts';
import type { BackendSpec, LoadedConfig, RawStrings, ServerSlot } from './types.ts';
import { isPlainObject } from '../shared/plain-object.ts';
import { DEFAULT_REQUEST_TIMEOUT } from '../shared/backend-spec.ts';

export const DEFAULT_CONNECTION_TIMEOUT = 10_000;
export { DEFAULT_REQUEST_TIMEOUT };
export const DEFAULT_MAX_RESTARTS = 5;
export const DEFAULT_RESTART_DELAY = 1_000;

export type NormalizeResult = { ok: true; config: LoadedConfig } | { ok: false; problems: ConfigProblem[] };

// Turns the parsed JSON of mcp.json into validated server slots. Only document-level problems
// fail the whole file; a bad server entry becomes an invalid slot and the others stay valid.
export function normalizeConfig(raw: unknown, file: string, dir: string, sources: EnvSources): NormalizeResult {
  if (!isPlainObject(raw)) return { ok: false, problems: [{ file, path: '', expected: 'a JSON object', found: describeValue(raw) }] };
  const warnings: string[] = [];
  const problems: ConfigProblem[] = [];
  const top = unknownKeys(raw, KNOWN_TOP_LEVEL_KEYS, '');
  if (top.ignored.length) warnings.push(`${file}: unknown top-level keys ignored: ${top.ignored.join(', ')}`);
  problems.push(...top.problems.map((problem) => ({ file, ...problem })));
  for (const key of ['mcpServers', 'mcpTemplates', 'templateSettings'] as const) {
    // mcpServers is the one required top-level key (service.md, "Configuration file").
    if ((raw[key] !== undefined || key === 'mcpServers') && !isPlainObject(raw[key])) problems.push({ file, path: key, expected: 'an object', found: describeValue(raw[key]) });
  }
  let defaults: ServerDefaults | undefined;
  if (raw.serverDefaults !== undefined) {
    const parsed = serverDefaultsSchema.safeParse(raw.serverDefaults, { reportInput: true });
    if (parsed.success) defaults = parsed.data;
    else problems.push(...problemsFromZod(file, ['serverDefaults'], parsed.error));
    if (isPlainObject(raw.serverDefaults)) {
      const unknown = unknownKeys(raw.serverDefaults, KNOWN_DEFAULTS_KEYS, 'serverDefaults');
      if (unknown.ignored.length) warnings.push(`${file}: serverDefaults: unknown keys ignored: ${unknown.ignored.join(', ')}`);
      problems.push(...unknown.problems.map((problem) => ({ file, ...problem })));
    }
  }
  if (problems.length) return { ok: false, problems };

  const templates = (raw.mcpTemplates ?? {}) as Record<string, unknown>;
  if (Object.keys(templates).length || raw.templateSettings !== undefined) {
    warnings.push(`${file}: mcpTemplates and templateSettings are validated but not served by this version`);
  }
  if (defaults?.oauth !== undefined) warnings.push(`${file}: serverDefaults.oauth is ignored by this version`);

  const servers: ServerSlot[] = [];
  for (const [name, value] of Object.entries((raw.mcpServers ?? {}) as Record<string, unknown>)) {
    if (name in templates) {
      warnings.push(`${file}: mcpServers.${name} is not served: mcpTemplates.${name} is authoritative for that name`);
      continue;
    }
    servers.push(normalizeServer(name, value, defaults, file, sources));
  }
  return { ok: true, config: { file, dir, servers, warnings } };
}

function invalid(name: string, tags: string[], disabled: boolean, problems: ConfigProblem[]): ServerSlot {
  return { name, tags, disabled, problems, warnings: [] };
}

export function normalizeServer(name: string, value: unknown, defaults: ServerDefaults | undefined, file: string, sources: EnvSources): ServerSlot {
  const at = ['mcpServers', name];
  const where = jsonPath(at);
  const looseTags = isPlainObject(value) && Array.isArray(value.tags) ? value.tags.filter((t): t is string => typeof t === 'string') : [];
  const looseDisabled = isPlainObject(value) && (value.disabled === true || (typeof value.disabled === 'string' && value.disabled.trim().toLowerCase() === 'true'));

  if (!SERVER_NAME_PATTERN.test(name) || name.includes('_agent_')) {
    return invalid(name, looseTags, looseDisabled, [
      { file, path: where, expected: 'a server name of letters, digits, `_` and `-` that does not contain `_agent_`', found: `the name ${JSON.stringify(name)}` },
    ]);
  }
  // Client-facing names are split on the first `_agent_` (decisions §9): `x_agent`'s tool `t`
  // would be `x_agent_agent_t`, read as server `x`'s tool `agent_t`.
  if (name.endsWith('_agent')) {
    return invalid(name, looseTags, looseDisabled, [
      {
        file,
        path: where,
        expected: `a server name that does not end in \`_agent\` (clients' names \`${name}_agent_<tool>\` are split on their first \`_agent_\`, so its tools could not be reached)`,
        found: `the name ${JSON.stringify(name)}`,
      },
    ]);
  }
  const parsed = serverEntrySchema.safeParse(value, { reportInput: true });
  if (!parsed.success) return invalid(name, looseTags, looseDisabled, problemsFromZod(file, at, parsed.error));
  const entry: ServerEntry = parsed.data;
  const tags = entry.tags ?? [];
  const warnings: string[] = [];
  const unknown = unknownKeys(value as object, KNOWN_SERVER_KEYS, where);
  if (unknown.problems.length) return invalid(name, tags, looseDisabled, unknown.problems.map((problem) => ({ file, ...problem })));
  if (unknown.ignored.length) warnings.push(`${file}: ${where}: unknown keys ignored: ${unknown.ignored.join(', ')}`);

  let disabled = false;
  if (typeof entry.disabled === 'string') {
    const literal = entry.disabled.trim().toLowerCase();
    if (literal !== 'true' && literal !== 'false') {
      return invalid(name, tags, false, [
        { file, path: `${where}.disabled`, expected: 'true or false (template strings are rendered only in mcpTemplates)', found: describeValue(entry.disabled) },
      ]);
    }
    disabled = literal === 'true';
  } else disabled = entry.disabled === true;

  const type = entry.type ?? (entry.command !== undefined && entry.url !== undefined ? undefined : entry.command !== undefined ? 'stdio' : entry.url !== undefined ? 'http' : undefined);
  if (type === undefined) {
    const ambiguous = entry.command !== undefined;
    return invalid(name, tags, disabled, [
      {
        file,
        path: ambiguous ? `${where}.type` : where,
        expected: ambiguous ? 'a `type` when both `command` and `url` are given' : '`command` (stdio server) or `url` (http, sse, streamableHttp server)',
        found: ambiguous ? 'both `command` and `url` and no `type`' : 'neither',
      },
    ]);
  }
  const { entry: merged, inherited } = mergeServerDefaults(defaults, entry, type === 'stdio');
  if (merged.timeout !== undefined) {
    const from = entry.timeout !== undefined ? `${where}.timeout` : `serverDefaults.timeout (inherited by ${where})`;
    warnings.push(`${file}: ${from} is deprecated: use connectionTimeout and requestTimeout`);
  }
  if (entry.oauth !== undefined) warnings.push(`${file}: ${where}.oauth is ignored by this version`);

  try {
    const spec = buildSpec(name, type, merged, tags, where, sources);
    if (spec.problem) return invalid(name, tags, disabled, [{ file, ...spec.problem }]);
    return { name, tags, disabled, spec: spec.spec, raw: rawStrings(spec.spec, merged), warnings, inherited };
  } catch (error) {
    if (!(error instanceof UndefinedVariableError)) throw error;
    return invalid(name, tags, disabled, [
      { file, path: error.field, expected: `the variable \`${error.variable}\` to be defined in the environment or the Runtime Scope .env`, found: 'it undefined', code: 'undefined_variable' },
    ]);
  }
}

// The unsubstituted strings of the fields that `$VAR` substitution fills in the spec.
function rawStrings(spec: BackendSpec, e: ServerEntry): RawStrings {
  if (spec.type === 'stdio') return { command: e.command, args: e.args ?? [], ...(e.cwd === undefined ? {} : { cwd: e.cwd }) };
  return { url: e.url, headers: e.headers ?? {} };
}

type SpecOutcome = { spec: BackendSpec; problem?: undefined } | { spec?: undefined; problem: Omit<ConfigProblem, 'file'> };

function buildSpec(name: string, type: NonNullable<ServerEntry['type']>, e: ServerEntry, tags: string[], where: string, sources: EnvSources): SpecOutcome {
  // Values `$VAR` took from variables with secret names: masked wherever the backend's worker reports.
  const referenced = new Set<string>();
  const seen = (variable: string, value: string) => void (isSecretName(variable) && referenced.add(value));
  const sub = (value: string, field: string) => substitute(value, field, sources, seen);
  const withSecrets = <S extends BackendSpec>(spec: S): S => (referenced.size ? { ...spec, referencedSecrets: [...referenced] } : spec);
  const common = {
    name,
    tags,
    connectionTimeout: e.connectionTimeout ?? e.timeout ?? DEFAULT_CONNECTION_TIMEOUT,
    requestTimeout: e.requestTimeout ?? e.timeout ?? DEFAULT_REQUEST_TIMEOUT,
    protocolVersion: e.protocolVersion ?? 'auto',
    disabledTools: e.disabledTools ?? [],
    toolDescriptionOverrides: e.toolDescriptionOverrides ?? {},
  } as const;
  if (type === 'stdio') {
    if (e.command === undefined) return { problem: { path: `${where}.command`, expected: 'a command for a stdio server', found: 'nothing' } };
    return {
      spec: withSecrets({
        ...common,
        type,
        command: sub(e.command, `${where}.command`),
        args: (e.args ?? []).map((a, i) => sub(a, `${where}.args[${i}]`)),
        cwd: e.cwd === undefined ? undefined : sub(e.cwd, `${where}.cwd`),
        env: buildChildEnv({ env: e.env, inheritParentEnv: e.inheritParentEnv ?? false, envFilter: e.envFilter ?? [] }, sources, where, seen),
        stderr: e.stderr === 'overlapped' || e.stderr === undefined ? 'pipe' : e.stderr,
        supervision: {
          restartOnExit: e.restartOnExit ?? false,
          maxRestarts: e.maxRestarts ?? DEFAULT_MAX_RESTARTS,
          restartDelay: e.restartDelay ?? DEFAULT_RESTART_DELAY,
        },
        ...(e.nice !== undefined ? { nice: e.nice } : {}),
        ...(e.stderrLimits !== undefined && Object.keys(e.stderrLimits).length > 0 ? { stderrLimits: e.stderrLimits } : {}),
      }),
    };
  }
  if (e.url === undefined) return { problem: { path: `${where}.url`, expected: `a url (required for type ${type})`, found: 'nothing' } };
  const url = sub(e.url, `${where}.url`);
  if (!z.url({ protocol: /^https?$/ }).safeParse(url).success) {
    return { problem: { path: `${where}.url`, expected: 'an absolute URL whose scheme is http or https', found: describeValue(url) } };
  }
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(e.headers ?? {})) {
    headers[key] = sub(value, `${where}.headers.${key}`);
    // A value substituted from $NAME is checked as a written one is (schema.ts): fetch would refuse it only at connect.
    if (!HEADER_VALUE.test(headers[key]!)) {
      return { problem: { path: `${where}.headers.${key}`, expected: `${HEADER_VALUE_EXPECTED} once its variables are substituted`, found: describeValue(headers[key], true) } };
    }
  }
  return { spec: withSecrets({ ...common, type, url, headers }) };
}
