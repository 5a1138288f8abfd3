// The MCP client a backend worker speaks to its backend with: one per connection, declaring
// what any client of the service may answer, and handing what the backend sends unasked (its
// questions, list changes, resource updates, task status, log messages) to the runner.
import { Client, ProtocolError, ProtocolErrorCode, SSEClientTransport, StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';
import * as z from 'zod';
import type { ProtocolMode, RemoteSpec } from '../shared/backend-spec.ts';
import type { InputMethod } from '../shared/messages/calls.ts';
import type { Logger } from '../shared/logger.ts';
import { SERVICE_NAME, SERVICE_VERSION } from '../shared/version.ts';
import { allowTaskMethods } from './task-handles.ts';
import { moveUrlCredentials } from './url-credentials.ts';

const TASK_STATUS = z.looseObject({ taskId: z.string() });

export type BackendClientHooks = {
  /** The backend announced a change of one of its lists (debounced). */
  onListChanged(): void;
  /** The backend asks the client something (elicitation, sampling): the answer, or a thrown ProtocolError. Absent: method not found. */
  onInputRequest?: (method: InputMethod, params: Record<string, unknown>, meta: Record<string, unknown> | undefined) => Promise<Record<string, unknown>>;
  onResourceUpdated(uri: string): void;
  onTaskStatus(params: Record<string, unknown>): void;
  onLogMessage(params: Record<string, unknown>): void;
  log: Pick<Logger, 'debug'>;
};

function negotiation(mode: ProtocolMode) {
  if (mode === 'legacy') return { mode: 'legacy' as const };
  if (mode === '2026-07-28') return { mode: { pin: '2026-07-28' } };
  return { mode: 'auto' as const };
}

export function newBackendClient(protocolVersion: ProtocolMode, hooks: BackendClientHooks): Client {
  const listChanged = { autoRefresh: false, debounceMs: 100, onChanged: () => hooks.onListChanged() };
  const client = new Client(
    { name: SERVICE_NAME, version: SERVICE_VERSION },
    {
      // One connection serves every session: it declares what any client may answer, and a
      // session whose client cannot answers with that client's error (issue 15).
      capabilities: { elicitation: { form: {}, url: {} }, sampling: { tools: {} } },
      // A 2026-07-28 backend's input_required result goes to the client as it is.
      inputRequired: { autoFulfill: false },
      versionNegotiation: negotiation(protocolVersion),
      listChanged: { tools: listChanged, prompts: listChanged, resources: listChanged },
    },
  );
  allowTaskMethods(client);
  client.onerror = (error) => hooks.log.debug({ err: error.message }, 'MCP client error');
  const ask = (method: InputMethod) => async (request: { params?: unknown }, ctx: { mcpReq: { _meta?: Record<string, unknown> } }) => {
    if (!hooks.onInputRequest) throw new ProtocolError(ProtocolErrorCode.MethodNotFound, 'Method not found');
    return hooks.onInputRequest(method, (request.params ?? {}) as Record<string, unknown>, ctx.mcpReq._meta) as never;
  };
  client.setRequestHandler('elicitation/create', ask('elicitation/create'));
  client.setRequestHandler('sampling/createMessage', ask('sampling/createMessage'));
  client.setNotificationHandler('notifications/resources/updated', (notification) => hooks.onResourceUpdated(notification.params.uri));
  // A 2025-11-25 task's status (the SDK has no typed entry for it): the hub that owns the task tells its client.
  client.setNotificationHandler('notifications/tasks/status', { params: TASK_STATUS }, (params) => hooks.onTaskStatus(params as Record<string, unknown>));
  client.setNotificationHandler('notifications/message', (notification) => hooks.onLogMessage(notification.params as Record<string, unknown>));
  return client;
}

/** The transport to a remote backend. fetch refuses a URL with user:password@: they go as a Basic Authorization header. */
export function remoteTransport(spec: RemoteSpec): Transport {
  const remote = moveUrlCredentials(spec.url, spec.headers);
  const url = new URL(remote.url);
  const requestInit = { headers: remote.headers };
  return spec.type === 'sse' ? new SSEClientTransport(url, { requestInit }) : new StreamableHTTPClientTransport(url, { requestInit });
}
