// A JSON answer the main thread writes itself (the Host/Origin refusal, 413, 503 without a hub):
// serialized once, with its length, never parsed from anything a client sent.
import type { ServerResponse } from 'node:http';

export function writeJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}
