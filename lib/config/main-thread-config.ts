// The loaded configuration as the main thread receives it from the config worker: what the
// registry uses of each server (not the strings as written nor the serverDefaults marks, which
// only the CLI shows; no spec for a disabled server), one v8-serialized buffer per server. The
// main thread reads them a few at a time between turns of its event loop, so a 10 MB mcp.json
// never holds a probe behind one long deserialization (issue 13).
import v8 from 'node:v8';
import type { LoadOutcome } from './load.ts';
import type { LoadedConfig, ServerSlot } from './types.ts';

export type SerializedConfig =
  | { ok: true; fingerprint: string; config: Omit<LoadedConfig, 'servers'>; servers: Uint8Array[] }
  | Extract<LoadOutcome, { ok: false }>;

/** Bytes read between two turns of the event loop. */
const BYTES_PER_TURN = 64 * 1024;

/** What the registry needs of a server. */
export function forMainThread(slot: ServerSlot): ServerSlot {
  const { name, disabled, tags, warnings, spec, problems } = slot;
  if (disabled) return { name, disabled, tags, warnings };
  return { name, disabled, tags, warnings, ...(spec ? { spec } : {}), ...(problems ? { problems } : {}) };
}

/** In the config worker. */
export function serializeOutcome(outcome: LoadOutcome): SerializedConfig {
  if (!outcome.ok) return outcome;
  const { servers, ...config } = outcome.config;
  return { ok: true, fingerprint: outcome.fingerprint, config, servers: servers.map((slot) => v8.serialize(forMainThread(slot))) };
}

/** On the main thread: the servers read back, yielding to the event loop every BYTES_PER_TURN. */
export async function deserializeOutcome(serialized: SerializedConfig, yieldTurn: () => Promise<void> = () => new Promise((resolve) => setImmediate(resolve))): Promise<LoadOutcome> {
  if (!serialized.ok) return serialized;
  const servers: ServerSlot[] = [];
  let sinceYield = 0;
  for (const bytes of serialized.servers) {
    if (sinceYield >= BYTES_PER_TURN) {
      await yieldTurn();
      sinceYield = 0;
    }
    servers.push(v8.deserialize(bytes) as ServerSlot);
    sinceYield += bytes.byteLength;
  }
  return { ok: true, fingerprint: serialized.fingerprint, config: { ...serialized.config, servers } };
}
