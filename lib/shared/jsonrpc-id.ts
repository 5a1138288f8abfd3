// A message over the size limit is skipped; only its first and last bytes are kept (LineReader).
// JSON-RPC messages are serialized as {"jsonrpc","id",...} or {...,"jsonrpc","id"}, so the id of
// a skipped one is found at the start of its head or at the end of its tail: the one answer it can get.
import type { OversizedLine } from './line-reader.ts';

export type JsonRpcId = string | number;

const ID = String.raw`(-?\d+|"(?:[^"\\]|\\.){0,256}")`;
const JSONRPC = String.raw`"jsonrpc"\s*:\s*"2\.0"`;
const ID_FIRST = new RegExp(String.raw`^\s*\{\s*(?:${JSONRPC}\s*,\s*)?"id"\s*:\s*${ID}\s*[,}]`);
const ID_LAST = new RegExp(String.raw`[{,]\s*"id"\s*:\s*${ID}\s*(?:,\s*${JSONRPC}\s*)?\}\s*$`);

/** The JSON-RPC id of a skipped message, when its kept bytes show one at the top level. */
export function findJsonRpcId(head: OversizedLine['head'], tail: OversizedLine['tail']): JsonRpcId | null {
  const match = ID_FIRST.exec(head.toString('utf8', 0, 1024)) ?? ID_LAST.exec(tail.toString('utf8'));
  if (!match) return null;
  try {
    return JSON.parse(match[1]!) as JsonRpcId;
  } catch {
    return null;
  }
}
