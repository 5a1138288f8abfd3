// piscina task: read, parse, validate and merge the configuration (zod and all) off the main
// thread, so a 10 MB mcp.json never stalls a probe. The main thread receives what it uses of each
// server, serialized per server (lib/config/main-thread-config.ts). The pool's thread starts at
// the main thread's priority: it lowers itself before it loads zod and the configuration code.
import { workerData } from 'node:worker_threads';
import type { SerializedConfig } from '../lib/config/main-thread-config.ts';
import type { ConfigLocation } from '../lib/config/paths.ts';
import { lowerThreadPriority } from '../lib/shared/priority.ts';

lowerThreadPriority(Number((workerData as { nice?: number } | null)?.nice ?? 0));
const { loadConfig } = await import('../lib/config/load.ts');
const { serializeOutcome } = await import('../lib/config/main-thread-config.ts');

export type ConfigTask = { location: ConfigLocation; env: Record<string, string | undefined>; platform: NodeJS.Platform };

export default async function loadConfigTask({ location, env, platform }: ConfigTask): Promise<SerializedConfig> {
  return serializeOutcome(await loadConfig(location, env, platform));
}
