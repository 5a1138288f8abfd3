// The log lines of routed calls that failed on the service's side: a timeout, a connection that
// ended under the call, a failure of ours (warn, error). A backend's own MCP error and a client's
// cancellation are the caller's business (debug). A backend that hangs or dies under many calls
// costs one line per code and 10 s: the first in full, the rest counted (windowed-counter.ts).
import { type BackendCall, CALL_FAILURE, type CallError } from '../shared/messages/calls.ts';
import { redactCredentials } from '../shared/sanitize.ts';
import type { ErrorCode } from '../shared/errors.ts';
import { REPORT_WINDOW_MS, WindowedCounter } from './windowed-counter.ts';

export type CallFailureLine = { level: 'debug' | 'warn' | 'error'; fields: { code: ErrorCode; method?: string; target?: string; calls?: number }; message: string };

const LEVEL: Record<CallError['kind'], CallFailureLine['level']> = { timeout: 'warn', disconnected: 'warn', internal: 'error', mcp: 'debug', cancelled: 'debug' };
const TARGET_CHARS = 200;
const identity = (text: string) => text;

/** What names the call's target: a tool's or prompt's name, a resource's URI. */
function targetOf(call: Pick<BackendCall, 'params'>): string | undefined {
  const { name, uri } = call.params;
  if (typeof name === 'string') return name;
  if (typeof uri === 'string') return uri;
  return undefined;
}

/** The line of one failed call; `mask` hides the server's configured secrets, before anything is cut. */
export function callFailureLine(call: Pick<BackendCall, 'method' | 'params'>, error: CallError, mask: (text: string) => string = identity): CallFailureLine {
  const target = targetOf(call);
  return {
    level: LEVEL[error.kind],
    fields: { code: CALL_FAILURE[error.kind], method: call.method, ...(target === undefined ? {} : { target: redactCredentials(mask(target), TARGET_CHARS) }) },
    message: redactCredentials(mask(error.message)),
  };
}

export class CallFailureLog {
  private readonly counters = new Map<ErrorCode, WindowedCounter>();

  constructor(
    private readonly write: (line: CallFailureLine) => void,
    private readonly mask: (text: string) => string = identity,
    private readonly now?: () => number,
  ) {}

  failed(call: Pick<BackendCall, 'method' | 'params'>, error: CallError): void {
    const line = callFailureLine(call, error, this.mask);
    if (line.level === 'debug') return this.write(line);
    const { code } = line.fields;
    let counter = this.counters.get(code);
    if (!counter) {
      const level = line.level;
      counter = new WindowedCounter(
        (count) => this.write({ level, fields: { code, calls: count }, message: `${count} more call(s) to this backend failed the same way (${code}) within ${REPORT_WINDOW_MS / 1000} s` }),
        REPORT_WINDOW_MS,
        this.now,
      );
      this.counters.set(code, counter);
    }
    if (counter.take() === 'full') this.write(line);
  }

  /** Sums up what was counted (the backend is stopping). */
  flush(): void {
    for (const counter of this.counters.values()) counter.flush();
  }
}
