// With `--transport stdio` the service's stdout carries the protocol: a backend whose `stderr` is
// file descriptor 1 would write its stderr into it, before the client's answers (found by an
// outside check). Such a server's stderr is captured instead, and the log says so. Pure.
import type { LoadedConfig } from '../config/types.ts';

export const STDOUT_FD = 1;

/** `config` with every stdio server's `stderr: 1` made `pipe`, and a warning for each. */
export function keepStdoutForProtocol(config: LoadedConfig): LoadedConfig {
  const warnings: string[] = [];
  const servers = config.servers.map((slot) => {
    const spec = slot.spec;
    if (spec?.type !== 'stdio' || spec.stderr !== STDOUT_FD) return slot;
    warnings.push(`${config.file}: mcpServers.${slot.name}.stderr is 1, the service's stdout, which carries the protocol with --transport stdio: its stderr is captured instead (as "pipe")`);
    return { ...slot, spec: { ...spec, stderr: 'pipe' as const } };
  });
  return warnings.length ? { ...config, servers, warnings: [...config.warnings, ...warnings] } : config;
}
