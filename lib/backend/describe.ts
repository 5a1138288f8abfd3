import type { ExitInfo } from '../shared/messages.ts';
import type { StdioSpec } from '../config/types.ts';

// Human wording of a child's end, with its last stderr line as a hint (sanitized later, on output).
export function describeExit(exit: Pick<ExitInfo, 'code' | 'signal'>, when: string, lastStderrLine: string): string {
  const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code ?? 'unknown'}`;
  const hint = lastStderrLine ? `; last stderr: ${lastStderrLine.slice(0, 120)}` : '';
  return `backend process ${how} ${when}${hint}`;
}

export function describeStartFailure(spec: StdioSpec, error: Error): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return `failed to start: command not found: ${spec.command} (ENOENT)`;
  if (code === 'EACCES') return `failed to start: permission denied: ${spec.command} (EACCES)`;
  if (code === 'ENOTDIR' || (code === 'ENOENT' && spec.cwd)) return `failed to start: working directory not usable: ${spec.cwd ?? ''}`;
  return `failed to start: ${error.message.split('\n')[0] ?? error.message}`;
}
