// `https://user:password@host/mcp`: fetch refuses a URL with credentials, so the backend worker
// sends them as a Basic Authorization header (unless one is configured: it wins) to the URL
// without them. The configuration keeps the URL as written (its password is one of the server's
// secrets: lib/shared/secret-values.ts).

export type UrlCredentials = { url: string; headers: Record<string, string>; secrets: string[] };

export function moveUrlCredentials(url: string, headers: Record<string, string>): UrlCredentials {
  const parsed = new URL(url);
  if (!parsed.username && !parsed.password) return { url, headers, secrets: [] };
  const user = decodeURIComponent(parsed.username);
  const password = decodeURIComponent(parsed.password);
  parsed.username = '';
  parsed.password = '';
  const configured = Object.keys(headers).some((name) => name.toLowerCase() === 'authorization');
  const basic = `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
  return {
    url: parsed.href,
    headers: configured ? headers : { ...headers, Authorization: basic },
    secrets: password ? [password] : [],
  };
}
