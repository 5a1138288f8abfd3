/**
 * Two redactions (decisions §4):
 * - `sanitize`: for whatever leaves over the network (health, REST, MCP errors to clients):
 *   secrets, URLs, paths and addresses removed, capped at 200 characters.
 * - `redactCredentials`: for the operator's own channels (the service log, CLI output):
 *   credentials only; paths, URLs and addresses stay so the operator can act on them.
 * Both are pure, synchronous, and linear in their input: every pattern below avoids
 * ambiguous nested quantifiers.
 */

export const MAX_SANITIZED_LENGTH = 200;

/** Raw characters looked at before control stripping (1 MB inputs are cut here). */
const MAX_RAW_LENGTH = 64 * 1024;
/** Characters the redaction patterns run on; everything later is cut anyway. */
const MAX_WORK_LENGTH = 4 * 1024;

const CSI = /(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]/g;
// OSC (title, hyperlink); an unterminated one swallows the rest, as a terminal would.
const OSC = /\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?/g;
const LINE_BREAKS = /[\t\n\v\f\r]/g;
// Remaining C0 controls (incl. bare ESC and NUL), DEL, C1 controls, and bidi overrides (text spoofing).
const CONTROLS = /[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const SCHEME = String.raw`[a-z][\w+.-]{0,31}:\/\/`;
const URL_CREDENTIALS = new RegExp(String.raw`\b(${SCHEME})[^\s\/?#@]{1,256}@`, 'gi');
// `user:pass@host` without a scheme (e.g. a DSN fragment); lookbehind anchors it to the start of a run.
const BARE_CREDENTIALS = /(?<![\w.%+:\/-])[\w.%+-]{1,64}:[^\s\/@]{1,128}@(?=[\w\[])/g;
// A URL whose `://` is mistyped (`http//user:pass@h`, `http:/user:pass@h`): its userinfo is still one.
const MISTYPED_URL_CREDENTIALS = /\b([a-z][\w+.-]{0,31}:?\/{1,3})[\w.%+-]{1,64}:[^\s\/@]{1,128}@(?=[\w\[])/gi;
// The key may be part of a longer one (GITHUB_TOKEN, x-api-key, client_secret, access_token).
// An unquoted value may start with an auth scheme word (`Authorization: Bearer abc`).
// `expected` after the separator is this service's own wording (`... at env.API_KEY: expected a string`).
const KEY_VALUE =
  /((?:password|passwd|secret|token|api[_-]?key|authorization)[\w-]{0,32}["']?\s{0,8}[:=]\s{0,8})(?!expected )("[^"]*"?|'[^']*'?|(?:(?:bearer|basic|digest|token)\s+)?[^\s,;&"']+)/gi;
const BEARER = /\b(bearer)\s+[^\s,;"']+/gi;
// `Basic <base64 of user:password>` outside a key (`you sent Basic dXNlcjpw...`): a padded run of
// base64 that decodes to text with a `:`, so `Basic Settings` and `basic TCP/IPv4` stay.
// A `/` in it may come JSON-escaped (`\/`).
const BASIC = /\b(Basic|basic|BASIC)\s+((?:[A-Za-z0-9+/]|\\\/){4,}={0,2})(?![\w+/=])/g;
function isBasicToken(written: string): boolean {
  const token = written.replaceAll('\\/', '/');
  if (token.length % 4 !== 0) return false;
  const decoded = Buffer.from(token, 'base64').toString('utf8');
  return decoded.includes(':') && !/[\u0000-\u001f\u007f\ufffd]/.test(decoded);
}
// A URL parameter whose name ends in a secret's word (`?key=`, `&sig=`, `#access_token=`,
// `?apiKey=`, `X-Amz-Signature=`): its value goes; `?author=`, `&keyword=`, `&monkey=` stay.
// A value ends at the next `?` or `;` too, so a parameter that holds a URL does not hide the secret one after it.
const QUERY_PARAM = /([?&#;])([\w.%-]{1,64})=([^&#;?\s"'<>]+)/g;
const SECRET_QUERY_NAME =
  /(?:^|[_.-])(?:key|sig|auth|pwd)$|(?:signature|token|password|passwd|secret|credentials?|(?:api|access|app|auth|private|secret|client|shared|user)key)$/i;
const secretQueryName = (name: string) => SECRET_QUERY_NAME.test(name.replace(/([a-z0-9])([A-Z])/g, '$1_$2'));
const TOKENS =
  /\b(?:sk-[\w-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,}|(?:AKIA|ASIA)[0-9A-Z]{16}|xox[abprs]-[\w-]{10,}|eyJ[\w-]{8,}(?:\.[\w-]*){0,2})/g;
// Trailing sentence punctuation is not part of the URL.
const URLS = new RegExp(String.raw`\b${SCHEME}(?:[^\s"'<>()]*[^\s"'<>().,;:!?])?`, 'gi');
const SEGMENT = String.raw`\/[\w.@+%~-]+`;
// Not preceded by a path/word char, so `a/b` and `./x/y` stay; `:line:col` suffixes survive.
const POSIX_PATH = new RegExp(String.raw`(?<![\w.~\/\\-])(?:~[\w.-]*(?:${SEGMENT})+|(?:${SEGMENT}){2,})\/?`, 'g');
const WINDOWS_PATH = /(?<![\w\\])(?:[A-Za-z]:[\\/]|\\\\[^\s"'<>|?*\\]+\\)[^\s"'<>|?*:]*/g;
const IPV4 = /(?<![\w.])(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})(?!\w|\.\d)/g;
// Candidate runs of hex digits, colons and dots that contain a colon; validated in code.
const IPV6 = /(?<![\w:.])(?=[0-9a-f.]*:)[0-9a-f:.]{2,45}(?![\w:])/gi;

/** Control sequences stripped and whitespace folded; cut at `workLength` (at a space when possible). */
function cleaned(text: unknown, workLength: number): { s: string; truncated: boolean } {
  let s = toText(text);
  let truncated = s.length > MAX_RAW_LENGTH;
  s = s
    .slice(0, MAX_RAW_LENGTH)
    .replace(CSI, '')
    .replace(OSC, '')
    .replace(LINE_BREAKS, ' ')
    .replace(CONTROLS, '')
    .replace(/\s+/g, ' ')
    .trim();
  if (s.length > workLength) {
    // Cut at a space so a secret straddling the cut is dropped whole, not left half-matched.
    const space = s.lastIndexOf(' ', workLength);
    s = s.slice(0, space > workLength / 2 ? space : workLength);
    truncated = true;
  }
  return { s, truncated };
}

function withoutCredentials(s: string): string {
  return s
    .replace(URL_CREDENTIALS, '$1[REDACTED]@')
    .replace(BARE_CREDENTIALS, '[REDACTED]@')
    .replace(MISTYPED_URL_CREDENTIALS, '$1[REDACTED]@')
    .replace(KEY_VALUE, (_m, key: string, value: string) => {
      const quote = value[0] === '"' || value[0] === "'" ? value[0] : '';
      return `${key}${quote}[REDACTED]${quote}`;
    })
    .replace(BEARER, '$1 [REDACTED]')
    .replace(BASIC, (match, word: string, token: string) => (isBasicToken(token) ? `${word} [REDACTED]` : match))
    .replace(QUERY_PARAM, (match, sep: string, name: string) => (secretQueryName(name) ? `${sep}${name}=[REDACTED]` : match))
    .replace(TOKENS, '[REDACTED]');
}

function capped(s: string, truncated: boolean, maxLength: number): string {
  if (!truncated && s.length <= maxLength) return s;
  s = s.slice(0, maxLength - 1);
  // Do not leave half of a surrogate pair behind.
  if (/[\ud800-\udbff]$/.test(s)) s = s.slice(0, -1);
  return `${s.trimEnd()}…`;
}

/** `maxLength` is 200 for error text (decisions §4). */
export function sanitize(text: unknown, maxLength = MAX_SANITIZED_LENGTH): string {
  const { s: raw, truncated } = cleaned(text, Math.max(MAX_WORK_LENGTH, maxLength));
  const s = withoutCredentials(raw)
    .replace(URLS, '[URL]')
    .replace(POSIX_PATH, '[PATH]')
    .replace(WINDOWS_PATH, '[PATH]')
    .replace(IPV4, (m, a: string, b: string, c: string, d: string) =>
      [a, b, c, d].some((o) => Number(o) > 255) ? m : `${a}.${b}.${c}.0`,
    )
    .replace(IPV6, truncateIpv6)
    .trim();
  return capped(s, truncated, maxLength);
}

/** Longest operator text kept (log fields, CLI messages); captured stderr lines pass their 8 KiB cap. */
export const MAX_OPERATOR_TEXT_LENGTH = 4 * 1024;

/** Credentials removed, everything else (paths, URLs without userinfo, addresses) kept: for logs and the CLI. */
export function redactCredentials(text: unknown, maxLength = MAX_OPERATOR_TEXT_LENGTH): string {
  const { s, truncated } = cleaned(text, Math.max(MAX_WORK_LENGTH, maxLength));
  return capped(withoutCredentials(s).trim(), truncated, maxLength);
}

function toText(value: unknown): string {
  try {
    if (value === null || value === undefined) return '';
    if (typeof value === 'string') return value;
    if (value instanceof Error) return String(value.message);
    return String(value);
  } catch {
    return ''; // e.g. an object whose toString throws
  }
}

/** Keeps the first 48 bits of an IPv6 candidate; anything that is not an address is returned as is. */
function truncateIpv6(candidate: string): string {
  const addr = candidate.replace(/\.+$/, '');
  const rest = candidate.slice(addr.length);
  // Real addresses nearly always have a digit; this spares words like `Face::bad`.
  if (!/\d/.test(addr)) return candidate;
  // IPv4-mapped: treat like IPv4 (its last octet was already zeroed).
  const mapped = /^::ffff:(\d{1,3}\.\d{1,3}\.\d{1,3}\.)\d{1,3}$/i.exec(addr);
  if (mapped) return `::ffff:${mapped[1]}0${rest}`;
  const groups = ipv6Groups(addr);
  if (!groups) return candidate;
  const kept = groups.slice(0, 3);
  while (kept.length > 0 && kept[kept.length - 1] === 0) kept.pop();
  return `${kept.map((g) => g.toString(16)).join(':')}::${rest}`;
}

/** Parses an IPv6 address into its eight 16-bit groups, or null if it is not one. */
function ipv6Groups(addr: string): number[] | null {
  let s = addr;
  const v4 = /:(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    if ([a, b, c, d].some((o) => o > 255)) return null;
    s = `${s.slice(0, v4.index)}:${(a * 256 + b).toString(16)}:${(c * 256 + d).toString(16)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const split = (h: string): string[] => (h === '' ? [] : h.split(':'));
  const head = split(halves[0] ?? '');
  const tail = halves.length === 2 ? split(halves[1] ?? '') : [];
  const parts = [...head, ...tail];
  if (!parts.every((p) => /^[0-9a-f]{1,4}$/i.test(p))) return null;
  if (halves.length === 2 ? parts.length > 7 : parts.length !== 8) return null;
  const zeros: string[] = Array.from({ length: 8 - parts.length }, () => '0');
  return [...head, ...zeros, ...tail].map((p) => parseInt(p, 16));
}
