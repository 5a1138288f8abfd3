// One line of a backend's stdout as a JSON-RPC message. The answer to a call is most of what a
// backend writes: a result response without `_meta` is accepted by a structural check that
// admits exactly what the SDK's JSONRPCMessageSchema admits for it (jsonrpc "2.0", a string or
// safe integer id, an object result, no other key), and returned as parsed (the schema's loose
// result would be a shallow copy of the same, without an own `__proto__` key: such a result goes
// the schema's way). Everything else goes through the schema. The schema's union tries a request
// and a notification first: for a 4 KiB tool answer that was the backend worker's largest single
// cost (`benchmarks/call-cost.ts`). A result's `_meta` is the schema's to check: it rewrites the
// serverInfo a 2026-07-28 backend puts there (unknown keys dropped, a malformed one removed).
import { type JSONRPCMessage, parseJSONRPCMessage } from '@modelcontextprotocol/client';
import { isPlainObject } from '../shared/plain-object.ts';

export function parseJsonRpcLine(text: string): JSONRPCMessage {
  const value: unknown = JSON.parse(text);
  return isPlainResultResponse(value) ? value : parseJSONRPCMessage(value);
}

function isPlainResultResponse(value: unknown): value is JSONRPCMessage {
  if (!isPlainObject(value)) return false;
  const message = value;
  let keys = 0;
  for (const _ in message) keys++;
  if (keys !== 3 || message.jsonrpc !== '2.0') return false;
  const { id, result } = message;
  if (!(typeof id === 'string' || Number.isSafeInteger(id))) return false;
  return isPlainObject(result) && !Object.hasOwn(result, '_meta') && !Object.hasOwn(result, '__proto__');
}
