// `agent mcp status --verbose`: each server's effective merged configuration, which keys came
// from serverDefaults, and secrets hidden unless --show-secrets: a string filled in by `$VAR`
// substitution is shown as written (its reference), URLs lose their userinfo and secret-looking
// parameter values, env and header values are masked, and so are the values of secret-looking
// flags among the args (`--token=abc`, `--password abc`). Pure.
import { referencedNames } from '../config/env.ts';
import type { ServerSlot } from '../config/types.ts';
import { MASK, maskArg, maskUrls } from './mask-secrets.ts';

export { MASK };

export type EffectiveEntry = {
  name: string;
  disabled: boolean;
  valid: boolean;
  /** The effective configuration (secrets hidden unless asked for); null for an invalid entry. */
  effective: Record<string, unknown> | null;
  /** Keys whose value came from serverDefaults. */
  fromDefaults: string[];
  problems: string[];
};

const maskValues = (record: Record<string, string>, show: boolean) => (show ? record : Object.fromEntries(Object.keys(record).map((k) => [k, MASK])));

// A substituted value is shown as its reference; a string of unknown origin is not shown at all.
function shown(value: string, raw: string | undefined, show: boolean): string {
  if (show) return value;
  if (raw === undefined) return MASK;
  return maskUrls(referencedNames(raw).length ? raw : value);
}

// An argument: as `shown`, and a secret-looking flag's value masked (`--token=abc`, `--password abc`).
function shownArg(value: string, raw: string | undefined, previous: string | undefined, show: boolean): string {
  if (show) return value;
  if (raw === undefined) return MASK;
  return referencedNames(raw).length ? maskUrls(raw) : maskArg(value, previous);
}

export function effectiveEntry(slot: ServerSlot, showSecrets: boolean, formatProblem: (p: NonNullable<ServerSlot['problems']>[number]) => string): EffectiveEntry {
  const base = { name: slot.name, disabled: slot.disabled, fromDefaults: slot.inherited ?? [], problems: (slot.problems ?? []).map(formatProblem) };
  if (!slot.spec) return { ...base, valid: false, effective: null };
  // referencedSecrets is the worker's masking list, not configuration: never shown.
  const { referencedSecrets: _secrets, ...spec } = slot.spec;
  const raw = slot.raw ?? {};
  const effective: Record<string, unknown> =
    spec.type === 'stdio'
      ? {
          ...spec,
          command: shown(spec.command, raw.command, showSecrets),
          args: spec.args.map((arg, i) => shownArg(arg, raw.args?.[i], spec.args[i - 1], showSecrets)),
          cwd: spec.cwd === undefined ? undefined : shown(spec.cwd, raw.cwd, showSecrets),
          env: maskValues(spec.env, showSecrets),
        }
      : { ...spec, url: shown(spec.url, raw.url, showSecrets), headers: maskValues(spec.headers, showSecrets) };
  return { ...base, valid: true, effective };
}

function render(value: unknown): string {
  if (value === undefined) return '(not set)';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function effectiveText(entries: EffectiveEntry[]): string {
  const out: string[] = ['Effective configuration (* = from serverDefaults; without --show-secrets: $VAR values shown as written, env and header values, the values of secret-looking flags and URL credentials masked)'];
  for (const e of entries) {
    out.push(`${e.name}${e.disabled ? ' (disabled)' : ''}${e.valid ? '' : ' (invalid: not started; one already running keeps its last good entry)'}`);
    for (const problem of e.problems) out.push(`  ! ${problem}`);
    if (!e.effective) continue;
    for (const [key, value] of Object.entries(e.effective)) {
      if (key === 'name') continue;
      const mark = e.fromDefaults.includes(key) ? '*' : ' ';
      if (value && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length > 0) {
        out.push(`  ${mark}${key}:`);
        // A nested key is marked by its own name (supervision's) or its path (`stderrLimits.lineBytes`).
        for (const [k, v] of Object.entries(value as Record<string, unknown>)) out.push(`    ${e.fromDefaults.includes(k) || e.fromDefaults.includes(`${key}.${k}`) ? '*' : ' '} ${k}: ${render(v)}`);
      } else {
        out.push(`  ${mark}${key}: ${render(value)}`);
      }
    }
  }
  return `${out.join('\n')}\n`;
}
