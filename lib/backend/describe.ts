import fs from 'node:fs';
import type { ExitInfo, WireError } from '../shared/messages/state-events.ts';
import type { ChildEnd } from './stdio-connection.ts';
import type { StdioSpec } from '../config/types.ts';

function how(exit: Pick<ExitInfo, 'code' | 'signal'>): string {
  return exit.signal ? `killed by ${exit.signal}` : `exited with code ${exit.code ?? 'unknown'}`;
}

function hint(lastStderrLine: string): string {
  return lastStderrLine ? `; last stderr: ${lastStderrLine.slice(0, 120)}` : '';
}

// Human wording of a child's end, with its last stderr line as a hint (sanitized later, on output).
export function describeExit(exit: Pick<ExitInfo, 'code' | 'signal'>, when: string, lastStderrLine: string): string {
  return `backend process ${exit.signal ? 'was ' : ''}${how(exit)} ${when}${hint(lastStderrLine)}`;
}

/** A child whose pipe closed (`closed its stdout`) while it kept running, and was then stopped. */
export function describePipeClosed(pipe: string, exit: Pick<ExitInfo, 'code' | 'signal'>, when: string, lastStderrLine: string): string {
  return `backend process ${pipe} ${when} and was stopped (${how(exit)})${hint(lastStderrLine)}`;
}

const isDirectory = (dir: string): boolean => {
  try {
    return fs.statSync(dir).isDirectory();
  } catch {
    return false;
  }
};

// spawn says ENOENT for a missing working directory as for a missing command: the directory is looked at to tell them apart.
export function describeStartFailure(spec: StdioSpec, error: Error, directoryExists: (dir: string) => boolean = isDirectory): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOTDIR' || (code === 'ENOENT' && spec.cwd !== undefined && !directoryExists(spec.cwd))) return `failed to start: working directory not usable: ${spec.cwd ?? ''}`;
  if (code === 'ENOENT') return `failed to start: command not found: ${spec.command} (ENOENT)`;
  if (code === 'EACCES') return `failed to start: permission denied: ${spec.command} (EACCES)`;
  return `failed to start: ${error.message.split('\n')[0] ?? error.message}`;
}

/** A stdio connection's end as the error reported for it. */
export function describeEnd(spec: StdioSpec, { exit, pipe }: ChildEnd, when: string, lastStderrLine: string): WireError {
  if (exit.spawnError) return { name: 'SpawnError', message: describeStartFailure(spec, exit.spawnError) };
  if (pipe) return { name: 'BackendPipeClosed', message: describePipeClosed(pipe, exit, when, lastStderrLine) };
  return { name: 'BackendExited', message: describeExit(exit, when, lastStderrLine) };
}
