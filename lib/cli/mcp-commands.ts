// `agent mcp status|restart|reload`: talk to the running service over the control bus (decisions
// §8). Each returns the text to print and the exit code; bin/agent.ts only prints it. `noted`,
// `failure` and `usage` are shared with tools-commands.ts.
import { formatProblem } from '../config/errors.ts';
import { loadConfig } from '../config/load.ts';
import type { ConfigLocation } from '../config/paths.ts';
import type { StatusView } from '../main/status-view.ts';
import { EXIT_NO_SERVICE, EXIT_OK, EXIT_RUNTIME, EXIT_USAGE, exitCode } from '../shared/errors.ts';
import { effectiveEntry, effectiveText } from './effective-config.ts';
import { liveText, operatorView } from './status-text.ts';
import { table } from './table.ts';
import { ask, findTarget, type LocationFlags, type Target } from './target.ts';

export type CommandResult = { code: number; stdout: string; stderr: string };
export type { LocationFlags };

/** The target's note (how the service was found) goes first on stderr. */
export const noted = (target: Target, result: CommandResult): CommandResult => (target.note ? { ...result, stderr: target.note + result.stderr } : result);

const noService = (target: Target, what: string): CommandResult => ({
  code: EXIT_NO_SERVICE,
  stdout: '',
  stderr: `agent: no running service found for ${target.location.dir} (control socket ${target.socket}); ${what} needs \`agent serve\` running\n`,
});

/** A failure the service (or the control bus) reported: the exit code its catalogue code says. */
export const failure = (answer: { code: string; message: string }): CommandResult => ({ code: exitCode(answer.code), stdout: '', stderr: `agent: ${answer.message}\n` });

/** A usage error (exit 2); `help` is the command line that shows the usage, e.g. `agent mcp restart --help`. */
export const usage = (message: string, help: string): CommandResult => ({ code: EXIT_USAGE, stdout: '', stderr: `agent: ${message}\nRun \`${help}\` for usage.\n` });

export async function restartCommand(server: string, flags: LocationFlags): Promise<CommandResult> {
  const target = await findTarget(flags);
  const answer = await ask(target, 'restart', { server });
  if (answer.kind === 'none') return noted(target, noService(target, '`agent mcp restart`'));
  if (answer.kind === 'error') return noted(target, failure(answer));
  return noted(target, { code: EXIT_OK, stdout: `Restarted ${server}\n`, stderr: '' });
}

export async function reloadCommand(flags: LocationFlags): Promise<CommandResult> {
  const target = await findTarget(flags);
  const answer = await ask(target, 'reload', {});
  if (answer.kind === 'none') return noted(target, noService(target, '`agent mcp reload`'));
  if (answer.kind === 'error') return noted(target, failure(answer));
  return noted(target, { code: EXIT_OK, stdout: `${(answer.result as { message: string }).message}\n`, stderr: '' });
}

// With no service running: what the configuration file says, clearly labelled as such.
async function configuredView(location: ConfigLocation, server: string | undefined, json: boolean): Promise<CommandResult> {
  const outcome = await loadConfig(location, process.env);
  if (!outcome.ok) return { code: EXIT_RUNTIME, stdout: '', stderr: `agent: service not running, and the configuration cannot be read: ${outcome.problems.map(formatProblem).join('; ')}\n` };
  let servers = outcome.config.servers.map((slot) => ({
    name: slot.name,
    type: slot.spec?.type ?? null,
    enabled: !slot.disabled,
    valid: !slot.problems,
    problems: (slot.problems ?? []).map(formatProblem),
    tags: slot.tags,
  }));
  if (server !== undefined) {
    servers = servers.filter((s) => s.name === server);
    if (!servers.length) return { code: EXIT_RUNTIME, stdout: '', stderr: `agent: Server '${server}' not found in ${location.file}\n` };
  }
  if (json) return { code: EXIT_OK, stdout: `${JSON.stringify({ live: false, configFile: location.file, servers }, null, 2)}\n`, stderr: '' };
  const rows = [['NAME', 'TYPE', 'ENABLED', 'VALID']];
  for (const s of servers) rows.push([s.name, s.type ?? '-', s.enabled ? 'yes' : 'no', s.valid ? 'yes' : 'no']);
  const problems = servers.flatMap((s) => s.problems.map((p) => `  ${p}`));
  return {
    code: EXIT_OK,
    stdout: `Service not running: configured servers in ${location.file} (no live state)\n${table(rows)}${problems.length ? `Problems:\n${problems.join('\n')}\n` : ''}`,
    stderr: '',
  };
}

export type StatusFlags = LocationFlags & { json?: boolean; verbose?: boolean; 'show-secrets'?: boolean };

// --verbose: the effective configuration computed from the file, whether or not a service runs.
async function withEffective(result: CommandResult, location: ConfigLocation, server: string | undefined, flags: StatusFlags): Promise<CommandResult> {
  if (!flags.verbose || result.code !== EXIT_OK) return result;
  const outcome = await loadConfig(location, process.env);
  if (!outcome.ok) return { ...result, stderr: `${result.stderr}agent: cannot show the effective configuration: ${outcome.problems.map(formatProblem).join('; ')}\n` };
  const entries = outcome.config.servers.filter((slot) => server === undefined || slot.name === server).map((slot) => effectiveEntry(slot, flags['show-secrets'] === true, formatProblem));
  if (flags.json) {
    const parsed = JSON.parse(result.stdout) as Record<string, unknown>;
    return { ...result, stdout: `${JSON.stringify({ ...parsed, effective: entries }, null, 2)}\n` };
  }
  return { ...result, stdout: `${result.stdout}\n${effectiveText(entries)}` };
}

export async function statusCommand(server: string | undefined, flags: StatusFlags): Promise<CommandResult> {
  const target = await findTarget(flags);
  const { location } = target;
  const answer = await ask(target, 'status', server === undefined ? {} : { server });
  if (answer.kind === 'none') return noted(target, await withEffective(await configuredView(location, server, flags.json === true), location, server, flags));
  if (answer.kind === 'error') return noted(target, failure(answer));
  const view = operatorView(answer.result as StatusView);
  return noted(target, await withEffective({ code: EXIT_OK, stdout: flags.json ? `${JSON.stringify(view, null, 2)}\n` : liveText(view), stderr: '' }, location, server, flags));
}
