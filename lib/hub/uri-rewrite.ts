// Resource URIs inside results name the backend's own resources; clients know them only in the
// client-facing form `<server>_agent_<uri>`, and read them back through the service. Rewrites
// `resource_link` blocks and embedded resources in tool results and prompt messages, and the URI
// of a failed read. Pure.
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { Code } from '../shared/errors.ts';
import { qualify } from '../shared/names.ts';
import { isPlainObject as isObject } from '../shared/plain-object.ts';

// One content block: a link carries `uri`, an embedded resource carries `resource.uri`.
function qualifyBlock(server: string, block: unknown): unknown {
  if (!isObject(block)) return block;
  if (block.type === 'resource_link' && typeof block.uri === 'string') return { ...block, uri: qualify(server, block.uri) };
  if (block.type === 'resource' && isObject(block.resource) && typeof block.resource.uri === 'string') {
    return { ...block, resource: { ...block.resource, uri: qualify(server, block.resource.uri) } };
  }
  return block;
}

/** A tools/call result with the URIs of its content blocks in client-facing form. */
export function qualifyToolResult(server: string, result: Record<string, unknown>): Record<string, unknown> {
  if (!Array.isArray(result.content)) return result;
  return { ...result, content: result.content.map((block) => qualifyBlock(server, block)) };
}

/** A prompts/get result with the URIs in its messages in client-facing form. */
export function qualifyPromptResult(server: string, result: Record<string, unknown>): Record<string, unknown> {
  if (!Array.isArray(result.messages)) return result;
  const messages = result.messages.map((m) => {
    if (!isObject(m)) return m;
    const content = Array.isArray(m.content) ? m.content.map((b) => qualifyBlock(server, b)) : qualifyBlock(server, m.content);
    return { ...m, content };
  });
  return { ...result, messages };
}

/** A resources/read result: each content's URI in client-facing form. */
export function qualifyReadResult(server: string, result: Record<string, unknown>): Record<string, unknown> {
  if (!Array.isArray(result.contents)) return result;
  return { ...result, contents: result.contents.map((c) => (isObject(c) && typeof c.uri === 'string' ? { ...c, uri: qualify(server, c.uri) } : c)) };
}

/**
 * A backend's error for a resources/read, in client-facing form: a `data.uri` names the client's
 * URI, and a "not found" (what the SDK reads as one: -32002, or -32602 whose data is `{uri}`
 * alone) is answered as the router answers an unknown resource, naming the URI the client asked
 * for (the backend's message was sanitized, which hid it) with the catalogue's code. Any other
 * error is returned as it is.
 */
export function qualifyResourceError(server: string, backendUri: string, error: unknown): unknown {
  if (!(error instanceof ProtocolError)) return error;
  const data = isObject(error.data) ? error.data : undefined;
  // The router adds `code: backend_error` beside a backend's own data: not the backend's.
  const keys = data === undefined ? [] : Object.keys(data).filter((key) => !(key === 'code' && data.code === Code.backend_error));
  const onlyUri = data !== undefined && typeof data.uri === 'string' && keys.length === 1;
  const notFound = error.code === ProtocolErrorCode.ResourceNotFound || (error.code === ProtocolErrorCode.InvalidParams && onlyUri);
  if (notFound) {
    const uri = qualify(server, typeof data?.uri === 'string' ? data.uri : backendUri);
    return new ProtocolError(error.code, `Unknown resource: ${uri} (backend '${server}' has no such resource)`, { ...data, code: Code.unknown_resource, uri, backend: server });
  }
  if (typeof data?.uri !== 'string') return error;
  return new ProtocolError(error.code, error.message, { ...data, uri: qualify(server, data.uri) });
}
