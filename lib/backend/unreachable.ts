// Whether an error says a remote backend could not be reached at all (refused, reset, a name that
// does not resolve, TLS), as opposed to a slow or refusing answer: fetch's 'fetch failed', a
// system error code, undici's own codes, also under the errors the SDK wraps them in. Pure.
const SYSTEM_CODE = /^(E[A-Z0-9_]+|UND_ERR_[A-Z_]+|ERR_TLS_[A-Z_]+|[A-Z_]*CERT[A-Z_]*)$/;

export function isUnreachable(error: unknown): boolean {
  let at: unknown = error;
  for (let depth = 0; depth < 5 && at instanceof Error; depth++) {
    if (at.message.endsWith('fetch failed')) return true;
    const code = (at as { code?: unknown }).code;
    if (typeof code === 'string' && SYSTEM_CODE.test(code)) return true;
    at = (at as { cause?: unknown }).cause;
  }
  return false;
}
