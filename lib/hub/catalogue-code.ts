// The MCP SDK answers some requests itself with a JSON-RPC error and no `data` (415 for a wrong
// Content-Type, 406 for a wrong Accept, -32700 for a body that is no JSON, 400 `Server not
// initialized`, 409 for a second GET stream): the README promises every JSON-RPC error an HTTP
// answer carries names its catalogue code in `data.code`. Only error answers are read again.
import { Code, type ErrorCode } from '../shared/errors.ts';

/** The catalogue's code for an SDK error answer of this HTTP status. */
export function codeForStatus(status: number): ErrorCode {
  switch (status) {
    case 404:
      return Code.session_not_found;
    case 405:
      return Code.method_not_allowed;
    case 413:
      return Code.message_too_large;
    default:
      return status >= 500 ? Code.internal : Code.bad_request;
  }
}

/** `response` with `data.code` added to a JSON-RPC error that has no `data`; any other answer as it is. */
export async function withCatalogueCode(response: Response): Promise<Response> {
  if (response.status < 400 || !response.headers.get('content-type')?.includes('application/json')) return response;
  const text = await response.text();
  const headers = new Headers(response.headers);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return new Response(text, { status: response.status, headers });
  }
  const error = (body as { error?: unknown } | null)?.error;
  if (error === null || typeof error !== 'object' || 'data' in error) return new Response(text, { status: response.status, headers });
  (error as { data?: unknown }).data = { code: codeForStatus(response.status) };
  headers.delete('content-length');
  return new Response(JSON.stringify(body), { status: response.status, headers });
}
