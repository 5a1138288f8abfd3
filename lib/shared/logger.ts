import pino from 'pino';
import { redactCredentials } from './sanitize.ts';
import { maskSecretValues } from './secret-values.ts';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];
export type Logger = pino.Logger;

const LABELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };

// A readable one-line rendering of pino's JSON, written to fd 2 itself as the JSON format is: a
// worker's process.stderr is a pipe to the main thread, which logged each pretty line again as
// a WARN of its own (two timestamps, the wrong level).
function prettyStderr(sync: boolean): pino.DestinationStream & { flush(cb?: (error?: Error) => void): void } {
  const fd2 = pino.destination({ fd: 2, sync });
  return {
    write(chunk: string) {
      try {
        const { level, time, msg, ...rest } = JSON.parse(chunk) as Record<string, unknown>;
        const extra = Object.keys(rest).length ? ` ${JSON.stringify(rest)}` : '';
        fd2.write(`${new Date(Number(time)).toISOString()} ${LABELS[Number(level)] ?? level} ${String(msg ?? '')}${extra}\n`);
      } catch {
        fd2.write(chunk);
      }
    },
    flush: (cb) => fd2.flush(cb),
  };
}

// All logs go to stderr: stdout carries the protocol in stdio mode (decisions §1). The main
// thread writes asynchronously (`sync: false`) so a slow stderr reader never stalls the probe
// path; call flushLogger() before exiting. Workers write synchronously: a terminated worker loses nothing.
/** Longest string field or message written to the log (a captured stderr line is at most 8 KiB). */
const MAX_LOGGED_TEXT = 16 * 1024;

// No credential reaches the log, whoever logs (decisions §4): every string field and the
// message lose their credentials; paths and addresses stay for the operator.
// A backend worker's logger also masks its server's configured secrets (secret-values.ts).
const redactText = (value: string, secrets: readonly string[]) => redactCredentials(secrets.length ? maskSecretValues(value, secrets) : value, MAX_LOGGED_TEXT);
const redactValue = (value: unknown, secrets: readonly string[]): unknown => {
  if (typeof value === 'string') return redactText(value, secrets);
  if (Array.isArray(value)) return value.map((item) => redactValue(item, secrets));
  if (value !== null && typeof value === 'object' && !(value instanceof Error)) return redactFields(value as Record<string, unknown>, secrets);
  return value;
};
const redactFields = (fields: Record<string, unknown>, secrets: readonly string[]): Record<string, unknown> => {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) out[key] = redactValue(value, secrets);
  return out;
};

export function createLogger(
  level: LogLevel,
  format: LogFormat,
  { sync = true, destination: to, secrets = [] }: { sync?: boolean; destination?: pino.DestinationStream; secrets?: readonly string[] } = {},
): Logger {
  const destination = to ?? (format === 'pretty' ? prettyStderr(sync) : pino.destination({ fd: 2, sync }));
  return pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.epochTime,
      formatters: { log: (fields) => redactFields(fields, secrets) },
      hooks: {
        logMethod(args, method) {
          const redacted = args.map((arg) => (typeof arg === 'string' ? redactText(arg, secrets) : arg)) as Parameters<typeof method>;
          method.apply(this, redacted);
        },
      },
    },
    destination,
  );
}

/** Writes out what an asynchronous logger still buffers. */
export function flushLogger(log: Logger): Promise<void> {
  return new Promise((resolve) => log.flush(() => resolve()));
}
