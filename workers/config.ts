// piscina task: read, parse, validate and merge the configuration (zod and all) off the main
// thread, so a 10 MB mcp.json never stalls a probe. The main thread receives plain data.
import { workerData } from 'node:worker_threads';
import { loadConfig, type LoadOutcome } from '../lib/config/load.ts';
import type { ConfigLocation } from '../lib/config/paths.ts';
import { lowerThreadPriority } from '../lib/shared/priority.ts';

lowerThreadPriority(Number((workerData as { nice?: number } | null)?.nice ?? 0));

export type ConfigTask = { location: ConfigLocation; env: Record<string, string | undefined>; platform: NodeJS.Platform };

export default function loadConfigTask({ location, env, platform }: ConfigTask): Promise<LoadOutcome> {
  return loadConfig(location, env, platform);
}
