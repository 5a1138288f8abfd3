// A backend's message nested more than MAX_NESTING levels deep is refused before the MCP client
// reads it: the SDK validates what it receives with recursive schemas, and a tool list whose
// inputSchema nests ~7,000 levels ran the worker's stack out ("Maximum call stack size
// exceeded" as the backend's lastError); an answer that passed them could not cross to the hub
// (nesting.ts). An answer becomes the error of its request, a request of the backend is answered
// with that error, a notification is dropped; each is logged, a flood once per 10 s.
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { Code } from '../shared/errors.ts';
import { MAX_NESTING, nestsDeeperThan, tooDeepError } from '../shared/nesting.ts';
import { REPORT_WINDOW_MS, WindowedCounter } from './windowed-counter.ts';

type Kind = 'answer' | 'request' | 'notification';
// No `backend` field: the worker's logger names the backend already (two would make a duplicate JSON key).
export type DeepMessageLine = { fields: { code: typeof Code.too_deep; method?: string; messages?: number }; message: string };

function kindOf(message: JSONRPCMessage): Kind {
  if ('method' in message) return 'id' in message && message.id !== undefined ? 'request' : 'notification';
  return 'answer';
}

/** What the backend sent, in words: its method, or what answers a request. */
export function deepMessageText(backend: string, message: JSONRPCMessage): string {
  const what = 'method' in message ? `a ${kindOf(message)} (${message.method})` : 'an answer';
  return `backend '${backend}' sent ${what} nested more than ${MAX_NESTING} levels deep: not read`;
}

/** After connect: deep messages from the backend never reach the client. `warn` writes the log line. */
export function refuseDeepMessages(transport: Transport, backend: string, warn: (line: DeepMessageLine) => void): void {
  const deliver = transport.onmessage;
  if (!deliver) return;
  const counter = new WindowedCounter((count) =>
    warn({ fields: { code: Code.too_deep, messages: count }, message: `${count} more message(s) of backend '${backend}' nested more than ${MAX_NESTING} levels deep within ${REPORT_WINDOW_MS / 1000} s: not read` }),
  );
  transport.onmessage = (message, extra) => {
    if (!nestsDeeperThan(message, MAX_NESTING)) return deliver(message, extra);
    const text = deepMessageText(backend, message);
    if (counter.take() === 'full') warn({ fields: { code: Code.too_deep, ...('method' in message ? { method: message.method } : {}) }, message: text });
    const id = 'id' in message ? message.id : undefined;
    if (id === undefined) return;
    const error = { jsonrpc: '2.0' as const, id, error: tooDeepError(text, backend) };
    // An answer fails the request it answers; a request of the backend's gets the error back.
    if (kindOf(message) === 'answer') return deliver(error, extra);
    void transport.send(error).catch(() => undefined);
  };
}
