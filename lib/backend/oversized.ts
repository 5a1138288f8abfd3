// A message from a backend over the size limit is skipped; only its first and last bytes are kept
// (LineReader). A response is serialized as {"jsonrpc","id","result"} or {"result",...,"jsonrpc","id"},
// so its id is found at the start of the head or at the end of the tail.
import type { RequestId } from '@modelcontextprotocol/client';
import type { OversizedLine } from '../shared/line-reader.ts';

const ID = String.raw`(-?\d+|"(?:[^"\\]|\\.){0,256}")`;
const JSONRPC = String.raw`"jsonrpc"\s*:\s*"2\.0"`;
const ID_FIRST = new RegExp(String.raw`^\s*\{\s*(?:${JSONRPC}\s*,\s*)?"id"\s*:\s*${ID}\s*[,}]`);
const ID_LAST = new RegExp(String.raw`[{,]\s*"id"\s*:\s*${ID}\s*(?:,\s*${JSONRPC}\s*)?\}\s*$`);

/** The JSON-RPC id of a skipped message, when its kept bytes show one at the top level. */
export function oversizedMessageId(line: Pick<OversizedLine, 'head' | 'tail'>): RequestId | null {
  const match = ID_FIRST.exec(line.head.toString('utf8', 0, 1024)) ?? ID_LAST.exec(line.tail.toString('utf8'));
  if (!match) return null;
  try {
    return JSON.parse(match[1]!) as RequestId;
  } catch {
    return null;
  }
}

export function oversizedMessageText(backend: string, bytes: number, limit: number): string {
  return `backend '${backend}' sent a message of ${bytes} bytes, over the limit of ${limit} bytes (--max-message-bytes)`;
}
