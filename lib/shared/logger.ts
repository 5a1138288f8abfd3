import { Writable } from 'node:stream';
import pino from 'pino';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];
export type Logger = pino.Logger;

const LABELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };

// A readable one-line rendering of pino's JSON, written synchronously to stderr.
function prettyStderr(): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      try {
        const { level, time, msg, ...rest } = JSON.parse(chunk.toString()) as Record<string, unknown>;
        const extra = Object.keys(rest).length ? ` ${JSON.stringify(rest)}` : '';
        process.stderr.write(`${new Date(Number(time)).toISOString()} ${LABELS[Number(level)] ?? level} ${String(msg ?? '')}${extra}\n`);
      } catch {
        process.stderr.write(chunk);
      }
      callback();
    },
  });
}

// All logs go to stderr: stdout carries the protocol in stdio mode (decisions §1). The main
// thread writes asynchronously (`sync: false`) so a slow stderr reader never stalls the probe
// path; call flushLogger() before exiting. Workers write synchronously: a terminated worker loses nothing.
export function createLogger(level: LogLevel, format: LogFormat, { sync = true }: { sync?: boolean } = {}): Logger {
  const destination = format === 'pretty' ? prettyStderr() : pino.destination({ fd: 2, sync });
  return pino({ level, base: undefined, timestamp: pino.stdTimeFunctions.epochTime }, destination);
}

/** Writes out what an asynchronous logger still buffers. */
export function flushLogger(log: Logger): Promise<void> {
  return new Promise((resolve) => log.flush(() => resolve()));
}
