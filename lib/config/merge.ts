import type { ServerDefaults, ServerEntry } from './schema.ts';

type EnvForm = NonNullable<ServerEntry['env']>;

const INHERITED_WHEN_MISSING = [
  'timeout',
  'connectionTimeout',
  'requestTimeout',
  'inheritParentEnv',
  'restartOnExit',
  'maxRestarts',
  'restartDelay',
  'nice',
] as const;
const STDIO_ONLY = new Set<string>(['inheritParentEnv', 'envFilter', 'restartOnExit', 'maxRestarts', 'restartDelay', 'env', 'nice', 'stderrLimits']);

// Rules 1 and 2 of serverDefaults merging, plus decisions §10 for mixed forms (the server's value replaces).
function mergeEnv(defaults: EnvForm | undefined, server: EnvForm | undefined): EnvForm | undefined {
  if (defaults === undefined) return server;
  if (server === undefined) return defaults;
  if (!Array.isArray(defaults) && !Array.isArray(server)) return { ...defaults, ...server };
  return server;
}

/** The keys of an entry whose value came from serverDefaults (for `mcp status --verbose`). */
export type MergeResult = { entry: ServerEntry; inherited: string[] };

// serverDefaults merge rules 1-7 of the spec; `isStdio` is the entry's inferred transport.
export function mergeServerDefaults(defaults: ServerDefaults | undefined, server: ServerEntry, isStdio: boolean): MergeResult {
  if (!defaults) return { entry: server, inherited: [] };
  const entry: ServerEntry = { ...server };
  const inherited: string[] = [];
  const applies = (key: string) => isStdio || !STDIO_ONLY.has(key);

  if (applies('env')) {
    const env = mergeEnv(defaults.env, server.env);
    if (env !== server.env) {
      entry.env = env;
      inherited.push('env');
    }
  }
  if (applies('envFilter') && defaults.envFilter?.length) {
    entry.envFilter = [...new Set([...defaults.envFilter, ...(server.envFilter ?? [])])];
    inherited.push('envFilter');
  }
  if (!isStdio && server.headers === undefined && defaults.headers !== undefined) {
    entry.headers = defaults.headers;
    inherited.push('headers');
  }
  if (server.oauth === undefined && defaults.oauth !== undefined) {
    entry.oauth = defaults.oauth;
    inherited.push('oauth');
  }
  // decisions §2: objects key by key, the server's keys win.
  // Marked as a whole when the server sets none; otherwise each key that came from the defaults
  // (`stderrLimits.linesPerWindow`), so `mcp status --verbose` marks those lines only.
  if (applies('stderrLimits') && defaults.stderrLimits !== undefined) {
    const fromDefaults = Object.keys(defaults.stderrLimits).filter((key) => server.stderrLimits?.[key as keyof typeof server.stderrLimits] === undefined);
    if (fromDefaults.length) {
      entry.stderrLimits = { ...defaults.stderrLimits, ...server.stderrLimits };
      if (server.stderrLimits === undefined) inherited.push('stderrLimits');
      inherited.push(...fromDefaults.map((key) => `stderrLimits.${key}`));
    }
  }
  for (const key of INHERITED_WHEN_MISSING) {
    if (!applies(key) || server[key] !== undefined || defaults[key] === undefined) continue;
    (entry as Record<string, unknown>)[key] = defaults[key];
    inherited.push(key);
  }
  return { entry, inherited };
}
