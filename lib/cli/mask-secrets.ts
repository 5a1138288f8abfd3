// What `agent mcp status --verbose` hides of a URL without --show-secrets: the userinfo and the
// values of secret-looking query and fragment parameters. The text stays as written (no URL
// parsing, which would re-encode `${VAR}` references). Pure.
import { followsSecretFlag, headerArgSecret, inlineFlagSecret, SECRET_MASK } from '../shared/secret-values.ts';
import { redactCredentials } from '../shared/sanitize.ts';

export const MASK = '****';

/** Parameter names treated as secrets: any name containing one of these words, in any case. */
export const SECRET_PARAM_NAME = /password|passwd|secret|token|api[_-]?key|apikey|client_secret|access_token|refresh_token|auth|key|sig|signature/i;

const URL_PARTS = /^([a-z][\w+.-]*:\/\/)([^/?#]*)([^?#]*)(\?[^#]*)?(#.*)?$/is;
const URL_IN_TEXT = /\b[a-z][\w+.-]*:\/\/[^\s"'<>]*/gi;

function decoded(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}

// `a=1&api_key=x` -> `a=1&api_key=****`; `sep` is the leading `?` or `#`.
function maskParams(part: string | undefined): string {
  if (!part) return '';
  const params = part
    .slice(1)
    .split('&')
    .map((param) => {
      const eq = param.indexOf('=');
      return eq > 0 && SECRET_PARAM_NAME.test(decoded(param.slice(0, eq))) ? `${param.slice(0, eq)}=${MASK}` : param;
    });
  return `${part[0]}${params.join('&')}`;
}

/** One URL with its userinfo and secret-looking parameter values masked; anything else is returned as is. */
export function maskUrl(url: string): string {
  const m = URL_PARTS.exec(url);
  if (!m) return url;
  const [, scheme, authority, path, query, fragment] = m as unknown as [string, string, string, string, string | undefined, string | undefined];
  const at = authority.lastIndexOf('@');
  const host = at === -1 ? authority : `${MASK}${authority.slice(at)}`;
  return `${scheme}${host}${path}${maskParams(query)}${maskParams(fragment)}`;
}

/** Every URL inside `text` masked as `maskUrl` does (an argument such as `--endpoint=https://u:p@h`). */
export function maskUrls(text: string): string {
  return text.replace(URL_IN_TEXT, maskUrl);
}

/**
 * One command-line argument with a secret-named flag's value masked, by the rule the service's
 * own masking uses (lib/shared/secret-values.ts): `--token=abc` -> `--token=****`, and the
 * argument after a bare `--password` -> `****` (`previous` is the argument before it). URLs
 * inside are masked as `maskUrls` does.
 */
export function maskArg(arg: string, previous?: string): string {
  if (followsSecretFlag(arg, previous)) return MASK;
  const value = inlineFlagSecret(arg) ?? headerArgSecret(arg);
  if (value !== null) return `${arg.slice(0, arg.length - value.length)}${MASK}`;
  // Credentials of a known shape (`ghp_...`, `sk-...`, a JWT) wherever they stand, as the service's log masks them.
  return redactCredentials(maskUrls(arg)).replaceAll(SECRET_MASK, MASK);
}
