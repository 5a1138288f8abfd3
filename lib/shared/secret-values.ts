// The secrets a server's own configuration gives the service: the values of its env variables
// and HTTP headers whose names say they hold one (API_KEY, GITHUB_TOKEN, DB_PASSWORD,
// Authorization, X-Api-Key, ...). A backend that prints one in another shape (`auth failed for
// key <value>`) would otherwise put it in the log, the health output and `agent mcp status`: its
// worker masks them in whatever it reports, before anything cuts or folds the text. Pure.
import type { BackendSpec } from './backend-spec.ts';

/** Name parts that mark a secret (a whole part: `GIT_AUTHOR_NAME` and `TOKENIZER` are not secrets). */
const SECRET_PARTS = new Set(['key', 'apikey', 'token', 'secret', 'password', 'passwd', 'pass', 'credential', 'credentials', 'cookie', 'auth', 'authorization', 'sig', 'signature', 'pat', 'jwt']);
/** A part ending in one of these is a secret too (`PGPASSWORD`, `SECRETKEY`, `BASICAUTH`). */
const SECRET_SUFFIX = /(?:password|passwd|secret|token|apikey|secretkey|accesskey|privatekey|basicauth|jwt)$/;
/** A last part that names something about a secret, not the secret (`KEY_DIR`, `TOKEN_FILE`, `SSH_AUTH_SOCK`, `AUTH_ISSUER`). */
const NOT_THE_VALUE = new Set([
  'dir', 'path', 'file', 'sock', 'socket', 'name', 'url', 'uri', 'host', 'port', 'id', 'type', 'mode', 'enabled', 'provider', 'method', 'scheme',
  'expiry', 'expires', 'ttl', 'length', 'size', 'user', 'username', 'email', 'issuer', 'endpoint', 'audience', 'server', 'domain', 'algorithm',
  'timeout', 'ms', 'seconds', 'limit', 'region', 'realm', 'tenant', 'scope', 'scopes', 'version', 'strategy',
]);
/** A value that is a file path names where a secret is, not the secret (`GOOGLE_APPLICATION_CREDENTIALS`). */
const PATH_VALUE = /^(?:~|[A-Za-z]:)?[\\/][^\s]*$/;
/** Shorter values are not masked: they would match ordinary words and numbers. */
export const MIN_SECRET_LENGTH = 6;
export const SECRET_MASK = '[REDACTED]';
/** A cut text's last characters that begin a secret are masked from this many on. */
const MIN_CUT_PREFIX = 4;

/** Whether an env variable's or header's name says its value is a secret. */
export function isSecretName(name: string): boolean {
  const parts = name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  if (parts.length === 0 || NOT_THE_VALUE.has(parts[parts.length - 1]!)) return false;
  return parts.some((part) => SECRET_PARTS.has(part) || SECRET_SUFFIX.test(part));
}

/** A URL's user or password as meant: each valid run of `%XX` decoded, a stray `%` (`100%pass`) kept as written. */
export function decodeUserinfo(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
      try {
        return decodeURIComponent(run);
      } catch {
        return run;
      }
    });
  }
}

/** The token of the Basic Authorization header a URL's user:password@ is sent as (lib/backend/url-credentials.ts). */
export function basicTokenOf(parsed: URL): string {
  return Buffer.from(`${decodeUserinfo(parsed.username)}:${decodeUserinfo(parsed.password)}`, 'utf8').toString('base64');
}

// The secret of a URL's user:password@: the password, or a user given alone (`https://TOKEN@host`),
// as written and decoded, and the Basic token it is sent as (a backend may echo that back).
function urlCredentials(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [];
  }
  const secret = parsed.password || parsed.username;
  const token = basicTokenOf(parsed);
  // The token also without its `=` padding, as some echo it.
  return secret ? [secret, decodeUserinfo(secret), token, token.replace(/=+$/, '')] : [];
}

/** The value a secret-named argument carries in itself (`--token=abc`, `API_KEY=abc` -> `abc`), or null. */
export function inlineFlagSecret(arg: string): string | null {
  const inline = /^-{0,2}([A-Za-z][\w.-]*)=(.+)$/s.exec(arg);
  return inline && isSecretName(inline[1]!) ? inline[2]! : null;
}

/** Whether `arg` is a bare secret-named flag whose value is the next argument (`--password`). */
export function isSecretFlag(arg: string): boolean {
  const flag = /^--?([A-Za-z][\w.-]*)$/.exec(arg);
  return flag !== null && isSecretName(flag[1]!);
}

/** Whether `arg` is the value of a bare secret-named flag `previous` (not another flag). */
export function followsSecretFlag(arg: string, previous: string | undefined): boolean {
  return previous !== undefined && isSecretFlag(previous) && !arg.startsWith('-');
}

/**
 * The value of an argument that is an HTTP header line with a secret-named header, as
 * `mcp-remote --header` and curl's `-H` take it (`Authorization: Bearer abc` -> `Bearer abc`), or null.
 */
export function headerArgSecret(arg: string): string | null {
  const header = /^([A-Za-z][\w-]*)\s*:\s*(\S.*)$/s.exec(arg);
  return header && isSecretName(header[1]!) ? header[2]! : null;
}

// The values of secret-named flags among a command's args: `--token=abc`, `--password abc`, and
// header lines (`--header "Authorization: Bearer abc"`).
function flagSecrets(args: readonly string[]): string[] {
  return args.flatMap((arg, i) => (followsSecretFlag(arg, args[i - 1]) ? [arg] : (inlineFlagSecret(arg) ?? headerArgSecret(arg) ?? [])));
}

/** The secret values of a server's spec, longest first (so one containing another is masked whole). */
export function secretValuesOf(spec: BackendSpec): string[] {
  const named = spec.type === 'stdio' ? spec.env : spec.headers;
  const candidates = [
    ...Object.entries(named).flatMap(([name, value]) => (isSecretName(name) ? [value] : [])),
    ...(spec.referencedSecrets ?? []),
    ...(spec.type === 'stdio' ? flagSecrets(spec.args ?? []) : urlCredentials(spec.url)),
  ];
  const values: string[] = [];
  for (const value of candidates) {
    if (PATH_VALUE.test(value.trim())) continue;
    const secret = value.replace(/^(?:bearer|basic|token)\s+/i, '');
    values.push(secret);
    // A multi-line secret (a PEM key) reaches the log line by line: each line counts on its own.
    if (/[\r\n]/.test(secret)) values.push(...secret.split(/\r?\n/));
  }
  return [...new Set(values.map((v) => v.trim()).filter((v) => v.length >= MIN_SECRET_LENGTH))].sort((a, b) => b.length - a.length);
}

// The shapes a secret is masked in: as written, JSON-escaped (also with `/` as `\/`, as PHP's
// json_encode writes it), URL-encoded.
function formsOf(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  return [...new Set([secret, json, json.replaceAll('/', '\\/'), encodeURIComponent(secret)])];
}

/**
 * `text` with every occurrence of every secret masked. `cut`: the text may have been cut (a line
 * over its byte limit), so a tail that begins a secret is masked too.
 */
export function maskSecretValues(text: string, secrets: readonly string[], cut = false): string {
  let out = text;
  for (const secret of secrets) {
    for (const form of formsOf(secret)) if (out.includes(form)) out = out.split(form).join(SECRET_MASK);
  }
  if (cut) {
    for (const form of secrets.flatMap(formsOf)) {
      for (let k = Math.min(form.length - 1, out.length); k >= MIN_CUT_PREFIX; k--) {
        if (out.endsWith(form.slice(0, k))) {
          out = out.slice(0, out.length - k) + SECRET_MASK;
          break;
        }
      }
    }
  }
  return out;
}
