// piscina task: read, parse, validate and merge the configuration (zod and all) off the main
// thread, so a 10 MB mcp.json never stalls a probe. The main thread receives what it uses of each
// server, serialized per server (lib/config/main-thread-config.ts).
import { workerData } from 'node:worker_threads';
import { loadConfig } from '../lib/config/load.ts';
import { type SerializedConfig, serializeOutcome } from '../lib/config/main-thread-config.ts';
import type { ConfigLocation } from '../lib/config/paths.ts';
import { lowerThreadPriority } from '../lib/shared/priority.ts';

lowerThreadPriority(Number((workerData as { nice?: number } | null)?.nice ?? 0));

export type ConfigTask = { location: ConfigLocation; env: Record<string, string | undefined>; platform: NodeJS.Platform };

export default async function loadConfigTask({ location, env, platform }: ConfigTask): Promise<SerializedConfig> {
  return serializeOutcome(await loadConfig(location, env, platform));
}
