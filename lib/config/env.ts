// The environment of a stdio child and `$NAME` substitution (decisions §10).
import { AgentError, Code } from '../shared/errors.ts';

export type EnvSources = {
  /** The service's own process environment. */
  parent: Record<string, string | undefined>;
  /** Runtime Scope: values of the `.env` beside mcp.json; the parent wins over them. */
  runtimeScope: Record<string, string>;
  platform: NodeJS.Platform;
};

/** A `$NAME` reference to no variable (catalogue code `undefined_variable`). */
export class UndefinedVariableError extends AgentError {
  override readonly name: string = 'UndefinedVariableError';
  constructor(
    readonly variable: string,
    readonly field: string,
  ) {
    super(Code.undefined_variable, `undefined variable \`${variable}\` referenced in ${field}`);
  }
}

const POSIX_BASE = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'];
const WINDOWS_BASE = [
  'APPDATA', 'HOMEDRIVE', 'HOMEPATH', 'LOCALAPPDATA', 'PATH', 'PROCESSOR_ARCHITECTURE',
  'SYSTEMDRIVE', 'SYSTEMROOT', 'TEMP', 'USERNAME', 'USERPROFILE',
];

export function lookup(name: string, sources: EnvSources): string | undefined {
  return sources.parent[name] ?? sources.runtimeScope[name];
}

// `$$` is a literal `$`; `$NAME` and `${NAME}` are references; anything else after `$` stays as written.
const REFERENCE = /\$(?:\$|\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g;

/** Substitutes references in `value`; `field` names the JSON path for the error; `seen` hears each variable's name and value. */
export function substitute(value: string, field: string, sources: EnvSources, seen?: (name: string, value: string) => void): string {
  return value.replace(REFERENCE, (match, braced: string | undefined, bare: string | undefined) => {
    const name = braced ?? bare;
    if (name === undefined) return '$';
    const found = lookup(name, sources);
    if (found === undefined) throw new UndefinedVariableError(name, field);
    seen?.(name, found);
    return found;
  });
}

/** The variable names a string references (for deciding which backends a `.env` change touches). */
export function referencedNames(value: string): string[] {
  const names: string[] = [];
  for (const m of value.matchAll(REFERENCE)) {
    const name = m[1] ?? m[2];
    if (name) names.push(name);
  }
  return names;
}

function patternMatches(pattern: string, name: string, caseInsensitive: boolean): boolean {
  const [p, n] = caseInsensitive ? [pattern.toUpperCase(), name.toUpperCase()] : [pattern, name];
  return p.endsWith('*') ? n.startsWith(p.slice(0, -1)) : n === p;
}

// Implicit inheritance: the base set, or everything with inheritParentEnv, narrowed by envFilter.
function inherited(sources: EnvSources, inheritParentEnv: boolean, envFilter: string[]): Record<string, string> {
  const win = sources.platform === 'win32';
  const base = win ? WINDOWS_BASE : POSIX_BASE;
  const excludes = envFilter.filter((p) => p.startsWith('!')).map((p) => p.slice(1));
  const includes = envFilter.filter((p) => !p.startsWith('!'));
  const out: Record<string, string> = {};
  const consider = (name: string, value: string | undefined, isBase: boolean) => {
    if (value === undefined || name in out) return;
    if (excludes.some((p) => patternMatches(p, name, win))) return;
    if (!isBase && includes.length > 0 && !includes.some((p) => patternMatches(p, name, win))) return;
    out[name] = value;
  };
  for (const name of base) {
    const key = win ? Object.keys(sources.parent).find((k) => k.toUpperCase() === name) : name;
    if (key !== undefined) consider(key, sources.parent[key], true);
  }
  if (inheritParentEnv) {
    for (const [name, value] of Object.entries(sources.parent)) consider(name, value, false);
    for (const [name, value] of Object.entries(sources.runtimeScope)) consider(name, value, false);
  }
  return out;
}

export type ChildEnvInput = {
  env: Record<string, string> | string[] | undefined;
  inheritParentEnv: boolean;
  envFilter: string[];
};

/** The complete environment for a stdio child; `fieldPrefix` is the entry's JSON path. */
export function buildChildEnv(input: ChildEnvInput, sources: EnvSources, fieldPrefix: string, seen?: (name: string, value: string) => void): Record<string, string> {
  const out = inherited(sources, input.inheritParentEnv, input.envFilter);
  if (Array.isArray(input.env)) {
    input.env.forEach((item, i) => {
      const eq = item.indexOf('=');
      if (eq === -1) {
        // A bare KEY copies the parent's or Runtime Scope's value when it is defined.
        const value = lookup(item, sources);
        if (value !== undefined) out[item] = value;
      } else {
        out[item.slice(0, eq)] = substitute(item.slice(eq + 1), `${fieldPrefix}.env[${i}]`, sources, seen);
      }
    });
  } else if (input.env) {
    for (const [key, value] of Object.entries(input.env)) {
      out[key] = substitute(value, `${fieldPrefix}.env.${key}`, sources, seen);
    }
  }
  return out;
}
