// What a worker thread writes to its process.stdout/stderr outside the logger (a library's
// console.log, a warning) becomes log lines: stderr carries only log lines in the chosen
// format, and stdout may carry the MCP protocol (stdio mode).
import type { Readable } from 'node:stream';

const MAX_LINE_CHARS = 8 * 1024;

/** Calls `onLine` for each line of `stream` (cut at 8 KiB); a last unterminated line on end. */
export function forEachLine(stream: Readable, onLine: (line: string) => void): void {
  let carry = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    const parts = (carry + chunk).split('\n');
    carry = parts.pop() ?? '';
    if (carry.length > MAX_LINE_CHARS) {
      parts.push(carry);
      carry = '';
    }
    for (const line of parts) if (line.trim()) onLine(line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line);
  });
  stream.on('end', () => {
    if (carry.trim()) onLine(carry);
    carry = '';
  });
}
