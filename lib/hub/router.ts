// Routes client requests to the owning backend's worker, turning every failure into an MCP
// error that names what went wrong. The main thread never calls a backend itself.
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { Catalog } from './catalog.ts';
import { qualify } from '../shared/names.ts';
import { isToolDisabled } from '../shared/tool-policy.ts';
import type { BackendFilter } from '../shared/tag-filter.ts';
import type { BackendHandle } from '../main/backend-handle.ts';
import type { BackendMethod, CallOutcome, ProgressParams } from '../shared/messages.ts';
import type { BackendState } from '../shared/backend-state.ts';
import { serverStatus } from '../shared/status.ts';

export type RouteExtra = {
  signal?: AbortSignal;
  onProgress?: (progress: ProgressParams) => void;
  /** Receives the backend's logging messages while the request runs. */
  onBackendLog?: (params: Record<string, unknown>) => void;
};

type Kind = 'tool' | 'prompt' | 'resource';

// Reserved `io.modelcontextprotocol/*` _meta keys describe the backend's own envelope (its
// serverInfo, protocol version): they are not ours to pass on to the client.
function withoutEnvelope(result: Record<string, unknown>): Record<string, unknown> {
  const meta = result._meta as Record<string, unknown> | undefined;
  if (!meta || typeof meta !== 'object') return result;
  const kept = Object.fromEntries(Object.entries(meta).filter(([key]) => !key.startsWith('io.modelcontextprotocol/')));
  const { _meta: _dropped, ...rest } = result;
  return Object.keys(kept).length ? { ...rest, _meta: kept } : rest;
}

export class Router {
  // Sessions with a request in flight per backend: where the backend's log messages go.
  private readonly logListeners = new Map<string, Set<(params: Record<string, unknown>) => void>>();

  constructor(
    private readonly catalog: Catalog,
    private readonly handles: (name: string) => BackendHandle | undefined,
  ) {}

  /** Delivers a backend's logging message to the sessions waiting on that backend. */
  backendLog(backend: string, params: Record<string, unknown>): void {
    for (const listener of this.logListeners.get(backend) ?? []) listener(params);
  }

  private unknown(kind: Kind, name: string): ProtocolError {
    const label = kind === 'resource' ? 'resource' : kind;
    return new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown ${label}: ${name}`, { [kind === 'resource' ? 'uri' : kind]: name });
  }

  private unavailable(backend: BackendState): ProtocolError {
    return new ProtocolError(ProtocolErrorCode.InternalError, `Backend '${backend.name}' is not connected (status: ${serverStatus(backend)})`, {
      backend: backend.name,
      status: serverStatus(backend),
    });
  }

  private target(kind: Kind, qualified: string, filter: BackendFilter): { backend: BackendState; name: string; handle: BackendHandle } {
    const found = this.catalog.resolve(qualified, filter);
    if ('error' in found) {
      if (found.error === 'unavailable') throw this.unavailable(found.backend);
      throw this.unknown(kind, qualified);
    }
    const inventory = found.backend.inventory;
    const known =
      kind === 'tool'
        ? inventory?.tools.some((t) => t.name === found.name)
        : kind === 'prompt'
          ? inventory?.prompts.some((p) => p.name === found.name)
          : true; // resource URIs may come from templates: the backend decides
    if (!known) throw this.unknown(kind, qualified);
    if (kind === 'tool' && isToolDisabled(found.backend.name, found.name, found.backend.toolPolicy)) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Tool ${qualified} is disabled by mcpServers.${found.backend.name}.disabledTools; enable it with \`agent mcp tools enable ${found.backend.name} ${found.name}\``,
        { tool: qualified, disabled: true },
      );
    }
    const handle = this.handles(found.backend.name);
    if (!handle) throw this.unavailable(found.backend);
    return { ...found, handle };
  }

  private async send(target: { backend: BackendState; handle: BackendHandle }, method: BackendMethod, params: Record<string, unknown>, extra: RouteExtra): Promise<Record<string, unknown>> {
    const name = target.backend.name;
    let listeners = this.logListeners.get(name);
    if (extra.onBackendLog) {
      if (!listeners) this.logListeners.set(name, (listeners = new Set()));
      listeners.add(extra.onBackendLog);
    }
    let outcome: CallOutcome;
    try {
      outcome = await target.handle.request(method, params, { ...(extra.signal ? { signal: extra.signal } : {}), ...(extra.onProgress ? { onProgress: extra.onProgress } : {}) });
    } finally {
      if (extra.onBackendLog) listeners?.delete(extra.onBackendLog);
    }
    if (outcome.ok) return withoutEnvelope(outcome.result);
    throw new ProtocolError(outcome.error.code, outcome.error.message, outcome.error.data ?? { backend: name, reason: outcome.error.kind });
  }

  async callTool(qualified: string, args: Record<string, unknown> | undefined, filter: BackendFilter, extra: RouteExtra) {
    const target = this.target('tool', qualified, filter);
    return this.send(target, 'tools/call', { name: target.name, ...(args ? { arguments: args } : {}) }, extra);
  }

  async getPrompt(qualified: string, args: Record<string, string> | undefined, filter: BackendFilter, extra: RouteExtra) {
    const target = this.target('prompt', qualified, filter);
    return this.send(target, 'prompts/get', { name: target.name, ...(args ? { arguments: args } : {}) }, extra);
  }

  async readResource(qualifiedUri: string, filter: BackendFilter, extra: RouteExtra) {
    const target = this.target('resource', qualifiedUri, filter);
    const result = await this.send(target, 'resources/read', { uri: target.name }, extra);
    // Contents name the backend's URIs; clients know them by their qualified form.
    const contents = Array.isArray(result.contents) ? result.contents.map((c: { uri?: string }) => (typeof c.uri === 'string' ? { ...c, uri: qualify(target.backend.name, c.uri) } : c)) : result.contents;
    return { ...result, contents };
  }

  async complete(ref: { type: string; name?: string; uri?: string }, params: Record<string, unknown>, filter: BackendFilter, extra: RouteExtra) {
    const isPrompt = ref.type === 'ref/prompt';
    const qualified = (isPrompt ? ref.name : ref.uri) ?? '';
    const target = this.target(isPrompt ? 'prompt' : 'resource', qualified, filter);
    const backendRef = isPrompt ? { ...ref, name: target.name } : { ...ref, uri: target.name };
    return this.send(target, 'completion/complete', { ...params, ref: backendRef }, extra);
  }
}
