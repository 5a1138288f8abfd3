// A JSON payload made into a string a client can hold but not forge or alter: base64url body,
// a dot, and an HMAC-SHA256 of the body under the service's key and a domain, so a token made
// for one purpose never passes for another. Used for requestState and task ids.
import { createHmac, timingSafeEqual } from 'node:crypto';

export type Sealer = {
  seal(payload: object): string;
  /** The payload, or null when the token is not one this key and domain made. */
  open(token: string): Record<string, unknown> | null;
};

export function createSealer(key: Buffer, domain: string): Sealer {
  const sign = (body: string) => createHmac('sha256', key).update(domain).update('\0').update(body).digest();
  return {
    seal(payload) {
      const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
      return `${body}.${sign(body).toString('base64url')}`;
    },
    open(token) {
      const dot = token.indexOf('.');
      const body = token.slice(0, dot);
      const mac = Buffer.from(token.slice(dot + 1), 'base64url');
      const expected = sign(body);
      if (dot <= 0 || mac.length !== expected.length || !timingSafeEqual(mac, expected)) return null;
      return JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<string, unknown>;
    },
  };
}
