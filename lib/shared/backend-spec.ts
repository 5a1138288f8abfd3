// What one backend is, once its configuration entry is validated and merged: plain data that
// crosses threads (main thread, backend workers, hubs). The configuration's other types are in
// lib/config/types.ts; these live in shared so that thread messages need nothing from config.
import type { StderrLimits } from './stderr-limits.ts';

/** decisions §2: a backend's requestTimeout when mcp.json sets none (the main thread needs it too). */
export const DEFAULT_REQUEST_TIMEOUT = 60_000;

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
