// A backend's question (elicitation, sampling) put to the client behind the call (issue 15): a
// 2025 session is asked at once, on the call's own stream; a 2026-07-28 client is asked by the
// call's answer (input_required), so the question is parked until the retry. What the client
// cannot answer is refused to the backend with the error that client would give.
import { CLIENT_CAPABILITIES_META_KEY, type ServerContext } from '@modelcontextprotocol/server';
import type { InputMethod, InputOutcome } from '../shared/messages/calls.ts';
import type { InputAnswer } from './link-types.ts';
import { isPlainObject } from '../shared/plain-object.ts';

type Capabilities = Record<string, unknown> | undefined;
type InputError = Extract<InputOutcome, { ok: false }>['error'];


/** Why a client with these capabilities cannot answer this question, or null when it can. */
export function inputRefusal(method: InputMethod, params: Record<string, unknown>, capabilities: Capabilities): InputError | null {
  if (method === 'elicitation/create') {
    const elicitation = capabilities?.elicitation;
    if (!isPlainObject(elicitation)) return { code: -32601, message: 'Method not found' };
    // An empty `elicitation: {}` is form mode only (the spec's compatibility rule).
    const url = isPlainObject(elicitation.url);
    const form = isPlainObject(elicitation.form) || !url;
    if (params.mode === 'url' && !url) return { code: -32602, message: 'Client does not support URL-mode elicitation requests' };
    if (params.mode !== 'url' && !form) return { code: -32602, message: 'Client does not support form-mode elicitation requests' };
    return null;
  }
  const sampling = capabilities?.sampling;
  if (!isPlainObject(sampling)) return { code: -32601, message: 'Method not found' };
  if ((params.tools !== undefined || params.toolChoice !== undefined) && !isPlainObject(sampling.tools)) {
    return { code: -32602, message: 'Client does not support tool use in sampling (sampling.tools)' };
  }
  return null;
}

/** What the client behind this request declared: per request (2026-07-28) or at initialize (2025). */
export function clientCapabilities(ctx: ServerContext, sessionCapabilities: () => Capabilities): Capabilities {
  const envelope = ctx.mcpReq.envelope;
  if (envelope === undefined) return sessionCapabilities();
  const declared = (envelope as Record<string, unknown>)[CLIENT_CAPABILITIES_META_KEY];
  return isPlainObject(declared) ? declared : {};
}

/** A failure of the client's answer (or of asking it) as the backend should see it. */
export function inputError(error: unknown): InputError {
  const e = error as { code?: unknown; message?: unknown; data?: unknown };
  const code = typeof e.code === 'number' ? e.code : -32603;
  return { code, message: String(e.message ?? error), ...(e.data !== undefined ? { data: e.data } : {}) };
}

/** How this request's client answers a backend's question. */
export function askClient(ctx: ServerContext, capabilities: Capabilities, timeoutMs: number) {
  return async (method: InputMethod, params: Record<string, unknown>): Promise<InputAnswer> => {
    const refusal = inputRefusal(method, params, capabilities);
    if (refusal) return { answer: { ok: false, error: refusal } };
    if (ctx.mcpReq.envelope !== undefined) return { park: true };
    // On the call's own POST stream (relatedRequestId), not the session's GET stream.
    const options = { relatedRequestId: ctx.mcpReq.id, timeout: timeoutMs };
    try {
      const result =
        method === 'elicitation/create'
          ? await ctx.mcpReq.elicitInput(params as never, options)
          : await ctx.mcpReq.requestSampling(params as never, options);
      return { answer: { ok: true, result: result as Record<string, unknown> } };
    } catch (error) {
      return { answer: { ok: false, error: inputError(error) } };
    }
  };
}
