// Read-only REST views of the aggregated capabilities (JSON): servers, tools (with effective
// descriptions, enabled flags and approximate token counts), resources and prompts.
import { qualify } from '../shared/names.ts';
import { isToolDisabled, withEffectiveDescription } from '../shared/tool-policy.ts';
import type { BackendState } from '../shared/backend-state.ts';
import type { BackendSource } from './backends.ts';
import { isHealthy, serverStatus } from '../shared/status.ts';
import type { TokenEstimator } from './token-estimator.ts';
import { sanitize } from '../shared/sanitize.ts';
import { Code, errorBody, httpStatus, Messages } from '../shared/errors.ts';

const send = (status: number, body: unknown): Response => Response.json(body, { status, headers: { 'Cache-Control': 'no-store' } });
const notFound = (message: string) => send(httpStatus(Code.not_found), errorBody(Code.not_found, message));

export function createRestHandlers({ source, tokens }: { source: BackendSource; tokens: TokenEstimator }) {
  const backends = () => [...source.all()];

  async function toolEntry(b: BackendState, tool: NonNullable<BackendState['inventory']>['tools'][number], detailed: boolean) {
    const effective = withEffectiveDescription(b.name, tool, b.toolPolicy);
    const name = qualify(b.name, tool.name);
    const entry: Record<string, unknown> = {
      server: b.name,
      name: tool.name,
      qualifiedName: name,
      description: effective.description ?? null,
      upstreamDescription: tool.description ?? null,
      overridden: effective !== tool,
      enabled: !isToolDisabled(b.name, tool.name, b.toolPolicy),
      tokens: await tokens.count({ name, description: effective.description, inputSchema: tool.inputSchema }),
    };
    if (detailed) Object.assign(entry, { inputSchema: tool.inputSchema, ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}), ...(tool.annotations ? { annotations: tool.annotations } : {}) });
    return entry;
  }

  // `?server=`: that backend alone (a disabled one has nothing to list, as /servers says), or 404 for a name the configuration does not have.
  const selection = (request: Request): BackendState[] | Response => {
    const only = new URL(request.url).searchParams.get('server') ?? undefined;
    if (only === undefined) return backends();
    const b = source.get(only);
    if (b) return [b];
    return [...source.disabled()].includes(only) ? [] : notFound(Messages.serverNotFound(only));
  };

  const guard = (handler: (request: Request, params: Record<string, string>) => Promise<Response> | Response) => async (request: Request, params: Record<string, string> = {}): Promise<Response> => {
    try {
      return await handler(request, params);
    } catch (error) {
      return send(httpStatus(Code.internal), errorBody(Code.internal, sanitize(error)));
    }
  };

  return {
    servers: guard(() => {
      const now = Date.now();
      const servers = backends().map((b) => ({
        name: b.name,
        status: serverStatus(b) as string,
        healthy: isHealthy(b, now),
        tags: b.tags,
        protocolVersion: b.protocolVersion,
        tools: b.inventory?.tools.length ?? 0,
        enabledTools: b.inventory?.tools.filter((t) => !isToolDisabled(b.name, t.name, b.toolPolicy)).length ?? 0,
        resources: b.inventory?.resources.length ?? 0,
        prompts: b.inventory?.prompts.length ?? 0,
      }));
      for (const name of source.disabled()) servers.push({ name, status: 'disabled', healthy: false, tags: [], protocolVersion: null, tools: 0, enabledTools: 0, resources: 0, prompts: 0 });
      return send(200, { servers });
    }),
    tools: guard(async (request) => {
      const selected = selection(request);
      if (selected instanceof Response) return selected;
      const tools = await Promise.all(selected.flatMap((b) => (b.inventory?.tools ?? []).map((t) => toolEntry(b, t, false))));
      return send(200, { tools, totalTokens: tools.filter((t) => t.enabled).reduce((n, t) => n + (t.tokens as number), 0) });
    }),
    tool: guard(async (_request, { server = '', tool = '' }) => {
      const b = source.get(server);
      if (!b) return notFound(Messages.serverNotFound(server));
      const found = b.inventory?.tools.find((t) => t.name === tool || qualify(b.name, t.name) === tool);
      if (!found) return notFound(`Tool '${tool}' not found on server '${server}'`);
      return send(200, await toolEntry(b, found, true));
    }),
    resources: guard((request) => {
      const selected = selection(request);
      if (selected instanceof Response) return selected;
      const resources = selected.flatMap((b) => (b.inventory?.resources ?? []).map((r) => ({ server: b.name, ...r, uri: qualify(b.name, r.uri), upstreamUri: r.uri })));
      const templates = selected.flatMap((b) => (b.inventory?.resourceTemplates ?? []).map((t) => ({ server: b.name, ...t, uriTemplate: qualify(b.name, t.uriTemplate) })));
      return send(200, { resources, resourceTemplates: templates });
    }),
    prompts: guard((request) => {
      const selected = selection(request);
      if (selected instanceof Response) return selected;
      const prompts = selected.flatMap((b) => (b.inventory?.prompts ?? []).map((p) => ({ server: b.name, ...p, name: qualify(b.name, p.name), upstreamName: p.name })));
      return send(200, { prompts });
    }),
  };
}
export type RestHandlers = ReturnType<typeof createRestHandlers>;
