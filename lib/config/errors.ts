import type { z } from 'zod';
import { redactCredentials } from '../shared/sanitize.ts';
import { isSecretName } from '../shared/secret-values.ts';

// One problem found in a configuration file, worded for a person: where, expected, found.
export type ConfigProblem = {
  file: string;
  /** JSON path such as `mcpServers.github.args[1]`; '' for the whole document. */
  path: string;
  expected: string;
  found: string;
  /** Line and column (1-based) when known, for syntax errors. */
  line?: number;
  column?: number;
  /** The catalogue's code when it is not `invalid_config` (a `$NAME` that names no variable). */
  code?: 'undefined_variable';
};

export function formatProblem(p: ConfigProblem): string {
  const where = p.line !== undefined ? `${p.file}:${p.line}:${p.column ?? 1}` : p.file;
  const at = p.path ? ` at ${p.path}` : '';
  return `${where}${at}: expected ${p.expected}, found ${p.found}`;
}

export function jsonPath(segments: readonly PropertyKey[]): string {
  let out = '';
  for (const s of segments) {
    if (typeof s === 'number') out += `[${s}]`;
    else {
      const key = String(s);
      out += /^[A-Za-z_$][A-Za-z0-9_$-]*$/.test(key) ? (out ? `.${key}` : key) : `[${JSON.stringify(key)}]`;
    }
  }
  return out;
}

/** Whether a JSON path passes through a key that names a secret (`env.API_KEY`, `headers.Authorization`, `oauth.clientSecret`). */
export function isSecretPath(segments: readonly PropertyKey[]): boolean {
  return segments.some((segment) => typeof segment === 'string' && isSecretName(segment));
}

/**
 * Whether a JSON path is at or under a server's (or serverDefaults') `env` or `headers`: what is
 * found there may be a secret typed where an object was expected (`"headers": "<token>"`), whatever
 * its key is called or however short it is.
 */
export function isSecretHolderPath(segments: readonly PropertyKey[]): boolean {
  const holder = segments[0] === 'serverDefaults' ? segments[1] : segments[0] === 'mcpServers' || segments[0] === 'mcpTemplates' ? segments[2] : undefined;
  return holder === 'env' || holder === 'headers';
}

/** Whether a JSON path is an entry of an `env` array (`env[2]`), a `KEY=value` whose value may be a secret whatever its name. */
export function isEnvEntryPath(segments: readonly PropertyKey[]): boolean {
  return segments.length >= 2 && segments[segments.length - 2] === 'env' && typeof segments[segments.length - 1] === 'number';
}

// An env array entry by its name alone: `DB-PASS=hunter2` is refused for its name, and its value is never shown.
export function describeEnvEntry(value: unknown): string {
  if (typeof value !== 'string') return describeValue(value, true);
  const eq = value.indexOf('=');
  if (eq < 0) return describeValue(value, true);
  const name = value.slice(0, eq);
  return `the entry ${JSON.stringify(`${name.length > 40 ? `${name.slice(0, 40)}…` : name}=…`)} (its value not shown)`;
}

// Describes a found value without echoing long or secret-looking strings; under a secret's key
// (`secret`), by its kind alone: a number is a secret as much as a string is.
export function describeValue(value: unknown, secret = false): string {
  if (secret && (typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint')) {
    return typeof value === 'string' ? (value === '' ? 'an empty string' : `a string of ${value.length} characters`) : 'a number';
  }
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return value.length === 0 ? 'an empty array' : `an array of ${value.length}`;
  switch (typeof value) {
    case 'string': {
      if (value === '') return 'an empty string';
      if (value.trim() === '') return 'a blank string';
      const shown = redactCredentials(value);
      return shown.length > 40 ? `a string of ${value.length} characters` : `the string ${JSON.stringify(shown)}`;
    }
    case 'number':
      // JSON.parse reads a number past the largest double (1e400) as Infinity.
      return Number.isFinite(value) ? `the number ${value}` : 'a number too large to hold (it reads as Infinity)';
    case 'boolean':
      return `${value}`;
    case 'object':
      return 'an object';
    default:
      return typeof value;
  }
}

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  array: 'an array',
  object: 'an object',
  record: 'an object',
};

function expectedOf(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return TYPE_WORDS[issue.expected] ?? issue.expected;
    case 'invalid_value':
      return `one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'invalid_union': {
      const options = issue.errors.map((branch) => (branch[0] ? expectedOf(branch[0]) : 'another shape'));
      return [...new Set(options)].join(' or ');
    }
    case 'invalid_key':
      return issue.issues[0] ? expectedOf(issue.issues[0]) : 'a valid key';
    case 'invalid_element':
      return issue.issues[0] ? expectedOf(issue.issues[0]) : 'a valid element';
    case 'too_small':
    case 'too_big':
    case 'invalid_format':
    case 'custom':
      if (!/^(Too |Invalid )/.test(issue.message)) return issue.message;
      if (issue.code === 'too_small' && issue.origin === 'string')
        return issue.minimum === 1 ? 'a non-empty string' : `a string of at least ${issue.minimum} characters`;
      if (issue.code === 'too_small' && typeof issue.minimum === 'number')
        return issue.inclusive ? `a value of at least ${issue.minimum}` : `a value greater than ${issue.minimum}`;
      if (issue.code === 'too_big' && typeof issue.maximum === 'number') return `a value of at most ${issue.maximum}`;
      return issue.message;
    default:
      return issue.message;
  }
}

// Whether a union branch rejected the kind of the input itself rather than its content.
function rejectsKind(i: z.core.$ZodIssue): boolean {
  if (i.path.length > 0) return false;
  if (i.code === 'invalid_type') return true;
  if (i.code === 'invalid_value') return !i.values.some((v) => typeof v === typeof i.input);
  return false;
}

// A union whose input has the kind of exactly one branch (e.g. an `env` object with a
// non-string value) reports that branch's own issues at their own paths.
function expandUnion(issue: z.core.$ZodIssue): z.core.$ZodIssue[] {
  if (issue.code !== 'invalid_union') return [issue];
  const shaped = issue.errors.filter((branch) => !branch.some(rejectsKind));
  if (shaped.length !== 1) return [issue];
  return shaped[0]!.flatMap((i) => expandUnion({ ...i, path: [...issue.path, ...i.path] }));
}

// zod checks a whole number against the safe-integer range as well as the schema's own bounds: of
// two bounds broken at one path, the tighter one is the problem (1e20 is over 67108864, not over
// 9007199254740991 too).
function tightestBounds(issues: z.core.$ZodIssue[]): z.core.$ZodIssue[] {
  const tightest = new Map<string, z.core.$ZodIssue>();
  // A length bound and a value bound are not compared ('int' and 'number' are both values).
  const keyOf = (issue: z.core.$ZodIssue) => {
    const origin = String((issue as { origin?: unknown }).origin);
    return `${issue.code} ${['string', 'array', 'set', 'file'].includes(origin) ? origin : 'value'} ${JSON.stringify(issue.path)}`;
  };
  const bound = (issue: z.core.$ZodIssue) => Number((issue as { maximum?: unknown; minimum?: unknown }).maximum ?? (issue as { minimum?: unknown }).minimum);
  for (const issue of issues) {
    if (issue.code !== 'too_big' && issue.code !== 'too_small') continue;
    const key = keyOf(issue);
    const held = tightest.get(key);
    if (!held || (issue.code === 'too_big' ? bound(issue) < bound(held) : bound(issue) > bound(held))) tightest.set(key, issue);
  }
  return issues.filter((issue) => (issue.code !== 'too_big' && issue.code !== 'too_small') || tightest.get(keyOf(issue)) === issue);
}

// Rewords zod issues (parsed with `reportInput: true`) into ConfigProblems under a JSON path prefix.
export function problemsFromZod(file: string, prefix: readonly PropertyKey[], error: z.ZodError): ConfigProblem[] {
  return tightestBounds(error.issues.flatMap(expandUnion)).flatMap((issue): ConfigProblem[] => {
    // A strict object's unknown keys: one problem per key, at that key.
    if (issue.code === 'unrecognized_keys') {
      const expected = /^Unrecognized/.test(issue.message) ? 'no such key' : issue.message;
      return issue.keys.map((key) => ({ file, path: jsonPath([...prefix, ...issue.path, key]), expected, found: `the key ${JSON.stringify(key)}` }));
    }
    const input = 'input' in issue ? issue.input : undefined;
    const segments = [...prefix, ...issue.path];
    return [
      {
        file,
        path: jsonPath(segments),
        expected: expectedOf(issue),
        found: issue.code === 'invalid_key' ? `the key ${JSON.stringify(String(input))}` : isEnvEntryPath(segments) ? describeEnvEntry(input) : describeValue(input, isSecretPath(segments) || isSecretHolderPath(segments)),
      },
    ];
  });
}
