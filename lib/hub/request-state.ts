// The `requestState` the service hands a client with an input_required answer (issue 15): it
// names where the retry goes (the backend, and the parked question or the backend's own state),
// and it is signed with the service's key, so a client can neither forge nor alter it, and
// states of another service, or of this one before a restart, are refused.
import { createSealer } from './signed-token.ts';

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
  const sealer = createSealer(key, 'agent requestState');
  return {
    mint(payload) {
      return sealer.seal({ ...payload, i: instance, e: now() + ttlMs } satisfies Signed);
    },
    verify(state) {
      if (typeof state !== 'string') throw new Error('requestState is not a string');
      const opened = sealer.open(state) as Signed | null;
      if (!opened) throw new Error('requestState signature does not match');
      const { i, e, ...payload } = opened;
      if (i !== instance) throw new Error('requestState was made before the service restarted');
      if (e < now()) throw new Error('requestState has expired');
      return payload as RequestStatePayload;
    },
  };
}
