import type { StderrLimits } from '../shared/stderr-limits.ts';
import type { ConfigProblem } from './errors.ts';

export type ProtocolMode = 'legacy' | '2026-07-28' | 'auto';
export type StderrTarget = 'pipe' | 'inherit' | 'ignore' | number;
export type RemoteType = 'http' | 'sse' | 'streamableHttp';

type CommonSpec = {
  name: string;
  tags: string[];
  connectionTimeout: number;
  requestTimeout: number;
  protocolVersion: ProtocolMode;
  disabledTools: string[];
  toolDescriptionOverrides: Record<string, string>;
  /** Values `$VAR` substitution took from variables with secret names (`${GITHUB_TOKEN}` in args): masked like env secrets. */
  referencedSecrets?: string[];
};

export type SupervisionPolicy = {
  restartOnExit: boolean;
  /** 0 = unlimited. */
  maxRestarts: number;
  restartDelay: number;
};

export type StdioSpec = CommonSpec & {
  type: 'stdio';
  command: string;
  args: string[];
  cwd: string | undefined;
  /** The child's complete environment (decisions §10), already resolved. */
  env: Record<string, string>;
  stderr: StderrTarget;
  supervision: SupervisionPolicy;
  /** Scheduling priority of the child (0-19); the worker raises it to at least `--worker-nice`. */
  nice?: number;
  /** The limits set in mcp.json (server, then serverDefaults); the service's flags and the spec's defaults fill the rest. */
  stderrLimits?: Partial<StderrLimits>;
};

export type RemoteSpec = CommonSpec & {
  type: RemoteType;
  url: string;
  headers: Record<string, string>;
};

/** Everything a backend worker needs to run one backend. Plain data: it crosses threads. */
export type BackendSpec = StdioSpec | RemoteSpec;

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
