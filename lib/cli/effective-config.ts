// `agent mcp status --verbose`: each server's effective merged configuration, which keys came
// from serverDefaults, and secrets masked unless --show-secrets. Pure.
import type { ServerSlot } from '../config/types.ts';

export const MASK = '****';

export type EffectiveEntry = {
  name: string;
  disabled: boolean;
  valid: boolean;
  /** The effective configuration (secrets masked); null for an invalid entry. */
  effective: Record<string, unknown> | null;
  /** Keys whose value came from serverDefaults. */
  fromDefaults: string[];
  problems: string[];
};

const maskValues = (record: Record<string, string>, show: boolean) => (show ? record : Object.fromEntries(Object.keys(record).map((k) => [k, MASK])));

export function effectiveEntry(slot: ServerSlot, showSecrets: boolean, formatProblem: (p: NonNullable<ServerSlot['problems']>[number]) => string): EffectiveEntry {
  const base = { name: slot.name, disabled: slot.disabled, fromDefaults: slot.inherited ?? [], problems: (slot.problems ?? []).map(formatProblem) };
  if (!slot.spec) return { ...base, valid: false, effective: null };
  const spec = slot.spec;
  const effective: Record<string, unknown> =
    spec.type === 'stdio'
      ? { ...spec, env: maskValues(spec.env, showSecrets) }
      : { ...spec, url: showSecrets ? spec.url : spec.url.replace(/\/\/[^/@\s]*@/, `//${MASK}@`), headers: maskValues(spec.headers, showSecrets) };
  return { ...base, valid: true, effective };
}

function render(value: unknown): string {
  if (value === undefined) return '(not set)';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function effectiveText(entries: EffectiveEntry[]): string {
  const out: string[] = ['Effective configuration (* = from serverDefaults; secrets masked unless --show-secrets)'];
  for (const e of entries) {
    out.push(`${e.name}${e.disabled ? ' (disabled)' : ''}${e.valid ? '' : ' (invalid: not started)'}`);
    for (const problem of e.problems) out.push(`  ! ${problem}`);
    if (!e.effective) continue;
    for (const [key, value] of Object.entries(e.effective)) {
      if (key === 'name') continue;
      const mark = e.fromDefaults.includes(key) ? '*' : ' ';
      if (value && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length > 0) {
        out.push(`  ${mark}${key}:`);
        for (const [k, v] of Object.entries(value as Record<string, unknown>)) out.push(`    ${e.fromDefaults.includes(k) ? '*' : ' '} ${k}: ${render(v)}`);
      } else {
        out.push(`  ${mark}${key}: ${render(value)}`);
      }
    }
  }
  return `${out.join('\n')}\n`;
}
