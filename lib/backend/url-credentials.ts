// `https://user:password@host/mcp`: fetch refuses a URL with credentials, so the backend worker
// sends them as a Basic Authorization header (unless one is configured: it wins) to the URL
// without them. The configuration keeps the URL as written; its credentials count as the
// server's secrets (lib/shared/secret-values.ts). Never throws for a URL the schema admitted.
import { basicTokenOf } from '../shared/secret-values.ts';

export type UrlCredentials = { url: string; headers: Record<string, string> };

export function moveUrlCredentials(url: string, headers: Record<string, string>): UrlCredentials {
  const parsed = new URL(url);
  if (!parsed.username && !parsed.password) return { url, headers };
  const basic = `Basic ${basicTokenOf(parsed)}`;
  parsed.username = '';
  parsed.password = '';
  const configured = Object.keys(headers).some((name) => name.toLowerCase() === 'authorization');
  return { url: parsed.href, headers: configured ? headers : { ...headers, Authorization: basic } };
}
