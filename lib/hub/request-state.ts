// The `requestState` the service hands a client with an input_required answer (issue 15): it
// names where the retry goes (the backend, and the parked question or the backend's own state),
// and it is signed with the service's key, so a client can neither forge nor alter it, and
// states of another service, or of this one before a restart, are refused.
import { createHmac, timingSafeEqual } from 'node:crypto';

export type RequestStatePayload =
  /** A 2026-07-28 backend's own input_required: its state travels inside ours. */
  | { k: 'pass'; b: string; s?: string }
  /** A question a 2025 backend asked, parked in its worker `w` under `p`. */
  | { k: 'park'; b: string; w: number; p: number };

type Signed = RequestStatePayload & { i: string; e: number };

export type StateCodec = {
  mint(payload: RequestStatePayload): string;
  /** The payload, or a thrown error saying why the state is refused. */
  verify(state: unknown): RequestStatePayload;
};

export function createStateCodec(key: Buffer, instance: string, ttlMs: number, now: () => number = Date.now): StateCodec {
  const sign = (body: string) => createHmac('sha256', key).update(body).digest();
  return {
    mint(payload) {
      const body = Buffer.from(JSON.stringify({ ...payload, i: instance, e: now() + ttlMs } satisfies Signed)).toString('base64url');
      return `${body}.${sign(body).toString('base64url')}`;
    },
    verify(state) {
      if (typeof state !== 'string') throw new Error('requestState is not a string');
      const dot = state.indexOf('.');
      const body = state.slice(0, dot);
      const mac = Buffer.from(state.slice(dot + 1), 'base64url');
      const expected = sign(body);
      if (dot <= 0 || mac.length !== expected.length || !timingSafeEqual(mac, expected)) throw new Error('requestState signature does not match');
      const { i, e, ...payload } = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Signed;
      if (i !== instance) throw new Error('requestState was made before the service restarted');
      if (e < now()) throw new Error('requestState has expired');
      return payload as RequestStatePayload;
    },
  };
}
