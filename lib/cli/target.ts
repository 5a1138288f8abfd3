// Which service an `agent mcp ...` command talks to, and the one way it asks (decisions §8).
// `--config` / `--config-dir` / AGENT_CONFIG / AGENT_CONFIG_DIR name the location, and
// `--state-dir` / AGENT_STATE_DIR where its control socket is (else the running service that
// announced that configuration file, wherever its state directory is). Without
// them, the default location is used when a service answers there; otherwise the one running
// service that announced itself elsewhere (lib/control/discovery.ts), with a note saying so.
import os from 'node:os';
import path from 'node:path';
import { callControl, NoServiceError } from '../control/client.ts';
import { findServices, type ServiceRecord } from '../control/discovery.ts';
import type { ControlOp } from '../control/protocol.ts';
import { socketPath } from '../control/server.ts';
import { type ConfigLocation, resolveConfigLocation } from '../config/paths.ts';
import { AgentError, Code } from '../shared/errors.ts';
import { redactCredentials } from '../shared/sanitize.ts';

export type LocationFlags = { config?: string | undefined; 'config-dir'?: string | undefined; 'state-dir'?: string | undefined };
type Env = Record<string, string | undefined>;

export type Target = {
  location: ConfigLocation;
  /** The control socket of the service for `location`. */
  socket: string;
  /** Its writable state, where edits keep their backups (decisions §2): `--state-dir`, AGENT_STATE_DIR, the running service's, else the configuration directory. */
  stateDir: string;
  /** Said once on stderr when the location did not come from the flags: '' or lines ending in \n. */
  note: string;
  /** The look-up's own question timed out (a stopped or hung service): every command gets this answer at once. */
  unanswered?: Answer;
};

export type TargetDeps = { homedir?: string; find?: () => Promise<ServiceRecord[]> };

function locate(flags: LocationFlags, env: Env = process.env, homedir: string = os.homedir()): ConfigLocation {
  return resolveConfigLocation({
    config: flags.config || env.AGENT_CONFIG || undefined,
    configDir: flags['config-dir'] || env.AGENT_CONFIG_DIR || undefined,
    platform: process.platform,
    homedir,
    env,
    cwd: process.cwd(),
  });
}

export type Answer = { kind: 'ok'; result: unknown } | { kind: 'error'; code: string; message: string } | { kind: 'none' };

/** One control-bus request; `none` when no service listens on the target's socket. */
export async function ask(target: Pick<Target, 'socket' | 'unanswered'>, op: ControlOp, args: Record<string, unknown>): Promise<Answer> {
  // The service accepted the look-up's connection and did not answer: asking again would wait as long again.
  if (target.unanswered) return target.unanswered;
  try {
    const response = await callControl(target.socket, op, args, { timeoutMs: op === 'status' ? 5_000 : 30_000 });
    // The operator's channel (decisions §4): credentials go, paths and URLs stay.
    return response.ok ? { kind: 'ok', result: response.result } : { kind: 'error', code: response.error.code, message: redactCredentials(response.error.message) };
  } catch (error) {
    if (error instanceof NoServiceError) return { kind: 'none' };
    // A control_timeout, unsafe_path or bad_response keeps its catalogue code.
    return { kind: 'error', code: error instanceof AgentError ? error.code : Code.internal, message: redactCredentials(error) };
  }
}

const describe = (s: ServiceRecord) => `pid ${s.pid}, ${s.configFile}`;

/** Where the command's service is (see the file comment). */
export async function findTarget(flags: LocationFlags, env: Env = process.env, deps: TargetDeps = {}): Promise<Target> {
  const location = locate(flags, env, deps.homedir);
  // The control socket is in the service's state directory: the configuration's unless named.
  const stateDir = flags['state-dir'] || env.AGENT_STATE_DIR || undefined;
  const target: Target = { location, socket: socketPath(stateDir ? path.resolve(stateDir) : location.dir), stateDir: stateDir ? path.resolve(stateDir) : location.dir, note: '' };
  const named = Boolean(flags.config || flags['config-dir'] || env.AGENT_CONFIG || env.AGENT_CONFIG_DIR);
  if (named && stateDir) return target;
  const probe = await ask(target, 'status', {});
  if (probe.kind === 'error' && probe.code === Code.control_timeout) return { ...target, unanswered: probe };
  if (probe.kind !== 'none') return target;
  let running: ServiceRecord[];
  try {
    running = await (deps.find ?? findServices)();
  } catch (error) {
    return named ? target : { ...target, note: `agent: note: could not look for services running elsewhere: ${redactCredentials(error)}\n` };
  }
  if (named) {
    // The service of this configuration, started with a --state-dir of its own: its announcement names its socket.
    const same = running.filter((s) => path.resolve(s.configFile) === location.file);
    return same.length === 1 ? { ...target, socket: same[0]!.socket, stateDir: same[0]!.stateDir ?? target.stateDir } : target;
  }
  const nothingHere = `no service runs for the default configuration directory ${location.dir}`;
  if (running.length === 1) {
    const [one] = running as [ServiceRecord];
    return { location: { file: one.configFile, dir: one.configDir }, socket: one.socket, stateDir: one.stateDir ?? one.configDir, note: `agent: note: ${nothingHere}; using the running service (${describe(one)})\n` };
  }
  if (running.length > 1) {
    return { ...target, note: `agent: note: ${nothingHere}; ${running.length} services run elsewhere (${running.map(describe).join('; ')}): choose one with --config or --config-dir\n` };
  }
  return target;
}
