// The secrets a server's own configuration gives the service: the values of its env variables
// with secret-looking names (API_KEY, GITHUB_TOKEN, DB_PASSWORD, ...) and of its HTTP headers.
// A backend that prints one in any shape (`auth failed for key <value>`) would otherwise put it
// in the log, the health output and `agent mcp status`: its worker masks them in whatever it
// reports. Pure.
import type { BackendSpec } from '../config/types.ts';

/** Variable names treated as holding secrets: any name containing one of these words, in any case. */
// Not `pwd` (PWD is the working directory) nor `session` (DBUS_SESSION_BUS_ADDRESS): paths the operator needs.
const SECRET_NAME = /password|passwd|secret|token|key|auth|credential|cookie|private/i;
/** Shorter values are not masked: they would match ordinary words and numbers. */
export const MIN_SECRET_LENGTH = 6;
export const SECRET_MASK = '[REDACTED]';

/** The secret values of a server's spec, longest first (so one containing another is masked whole). */
export function secretValuesOf(spec: BackendSpec): string[] {
  const values: string[] = [];
  if (spec.type === 'stdio') {
    for (const [name, value] of Object.entries(spec.env)) if (SECRET_NAME.test(name)) values.push(value);
  } else {
    for (const value of Object.values(spec.headers)) values.push(value.replace(/^(?:bearer|basic|token)\s+/i, ''));
  }
  return [...new Set(values.map((v) => v.trim()).filter((v) => v.length >= MIN_SECRET_LENGTH))].sort((a, b) => b.length - a.length);
}

/** `text` with every occurrence of every secret (as written, or JSON-escaped) masked. */
export function maskSecretValues(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (out.includes(secret)) out = out.split(secret).join(SECRET_MASK);
    const escaped = JSON.stringify(secret).slice(1, -1);
    if (escaped !== secret && out.includes(escaped)) out = out.split(escaped).join(SECRET_MASK);
  }
  return out;
}
