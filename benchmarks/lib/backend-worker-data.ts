// What a backend worker is started with, for the benchmarks that start one by hand
// (worker-heap.ts, worker-rss.ts): one healthy fixture loaded through the real configuration
// loader, the loader data given, and the comlink port to its API (the other end returned).
import fs from 'node:fs';
import path from 'node:path';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { BENCH, FIXTURES } from './service.ts';

export type LoaderData = { bundle: string; cache: SharedArrayBuffer | null; cacheFile: null; make: boolean };

export async function backendWorkerData(name: string, loader: LoaderData): Promise<{ workerData: Record<string, unknown>; api: MessagePort; transferList: MessagePort[] }> {
  const { loadConfig } = await import('../../lib/config/load.ts');
  const { DEFAULT_STDERR_LIMITS } = await import('../../lib/shared/stderr-limits.ts');
  const dir = fs.mkdtempSync(path.join(BENCH, '.tmp', 'worker-data-'));
  const file = path.join(dir, 'mcp.json');
  fs.writeFileSync(file, JSON.stringify({ mcpServers: { [name]: { command: process.execPath, args: [FIXTURES.healthy], env: { FIXTURE_NAME: name } } } }));
  const loaded = await loadConfig({ file, dir }, process.env);
  fs.rmSync(dir, { recursive: true, force: true });
  if (!loaded.ok) throw new Error('fixture configuration did not load');
  const channel = new MessageChannel();
  const workerData = {
    loader,
    spec: loaded.config.servers[0]!.spec,
    api: channel.port2,
    log: { level: 'warn', format: 'json' },
    pingIntervalMs: 30_000,
    pingTimeoutMs: 5_000,
    maxMessageBytes: 16 * 1024 * 1024,
    stateDir: null,
    nice: 0,
    stderrLimits: DEFAULT_STDERR_LIMITS,
  };
  return { workerData, api: channel.port1, transferList: [channel.port2] };
}
