// One line of a backend's stdout as a JSON-RPC message. The answer to a call is most of what a
// backend writes: a result response is accepted by a structural check that admits exactly what
// the SDK's JSONRPCMessageSchema admits for it (jsonrpc "2.0", a string or integer id, an object
// result whose `_meta`, if any, is an object without the two keys the schema types, no other key),
// and returned as parsed (the schema's loose objects would be shallow copies of the same).
// Everything else goes through the schema. The schema's union tries a request and a notification
// first: for a 4 KiB tool answer that was the backend worker's largest single cost
// (`benchmarks/call-cost.ts`). A 2026-07-28 backend puts its serverInfo in every result's `_meta`.
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
  if (!(typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)))) return false;
  return isPlainObject(result) && (!Object.hasOwn(result, '_meta') || isUntypedMeta(result._meta));
}

// The schema's `_meta` (RequestMetaSchema) types `progressToken` and the related task: with
// neither, it admits any object as it is.
function isUntypedMeta(meta: unknown): boolean {
  return isPlainObject(meta) && !Object.hasOwn(meta, 'progressToken') && !Object.hasOwn(meta, 'io.modelcontextprotocol/related-task');
}
