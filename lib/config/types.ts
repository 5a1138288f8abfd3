import type { BackendSpec } from '../shared/backend-spec.ts';
import type { ConfigProblem } from './errors.ts';

// A backend's validated spec is shared (thread messages carry it); re-exported for config's users.
export type { BackendSpec, ProtocolMode, RemoteSpec, RemoteType, StderrTarget, StdioSpec, SupervisionPolicy } from '../shared/backend-spec.ts';

/**
 * The strings of an entry as written in mcp.json (after the serverDefaults merge, before `$VAR`
 * substitution), so that `agent mcp status --verbose` can show a reference instead of its value.
 */
export type RawStrings = {
  command?: string;
  args?: string[];
  cwd?: string;
  url?: string;
  headers?: Record<string, string>;
};

/** One entry of `mcpServers` after validation. */
export type ServerSlot = {
  name: string;
  disabled: boolean;
  tags: string[];
  /** Present when the entry is valid. */
  spec?: BackendSpec;
  /** Present with `spec`: its substituted strings as written. */
  raw?: RawStrings;
  /** Present when the entry is invalid: why it is not started. */
  problems?: ConfigProblem[];
  /** Non-fatal notes, e.g. the deprecated `timeout`. */
  warnings: string[];
  /** Keys whose value came from serverDefaults (valid entries). */
  inherited?: string[];
};

export type LoadedConfig = {
  file: string;
  dir: string;
  servers: ServerSlot[];
  /** Document-level warnings (keys served by a later version, shadowed entries). */
  warnings: string[];
};
