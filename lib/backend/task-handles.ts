// The MCP SDK's client (2.4.0) has no runtime for the 2026-07-28 Tasks extension
// (`io.modelcontextprotocol/tasks`): it refuses a `resultType: "task"` answer, and it will not
// send `tasks/get` or `tasks/cancel` to a 2026-07-28 server (deleted from that revision's core,
// re-defined by the extension). The worker passes tasks through as they come, so it carries a
// task handle past the client's result check inside `_meta`, unwraps it again, and lets those
// two methods out. Nothing else changes.
import type { Client, Transport } from '@modelcontextprotocol/client';

const HANDLE_KEY = 'agent/task-handle';
const EXTENSION_METHODS = new Set(['tasks/get', 'tasks/cancel']);

type Message = { id?: unknown; result?: Record<string, unknown> };

/** After connect: a response that is a task handle reaches the client as an empty complete result carrying it. */
export function carryTaskHandles(transport: Transport): void {
  const deliver = transport.onmessage;
  if (!deliver) return;
  transport.onmessage = (message, extra) => {
    const result = (message as Message).result;
    if ((message as Message).id === undefined || result?.resultType !== 'task') return deliver(message, extra);
    const carried = { ...message, result: { resultType: 'complete', content: [], _meta: { [HANDLE_KEY]: result } } };
    return deliver(carried as typeof message, extra);
  };
}

/** The task handle a result carries, or the result itself. */
export function unwrapTaskHandle(result: Record<string, unknown>): Record<string, unknown> {
  const handle = (result._meta as Record<string, unknown> | undefined)?.[HANDLE_KEY];
  return handle !== null && typeof handle === 'object' ? (handle as Record<string, unknown>) : result;
}

/** Lets the extension's tasks/get and tasks/cancel go to a 2026-07-28 server. */
export function allowTaskMethods(client: Client): void {
  const gated = client as unknown as { _assertOutboundRequestInEra(codec: unknown, method: string): void };
  const assertInEra = gated._assertOutboundRequestInEra.bind(client);
  gated._assertOutboundRequestInEra = (codec, method) => {
    if (!EXTENSION_METHODS.has(method)) assertInEra(codec, method);
  };
}
