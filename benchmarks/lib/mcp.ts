// Tool calls through the service's /mcp against calling a backend of the same kind directly over
// stdio, both with the v2 SDK client.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
// Before any client: Node's leak warning for the SDK's abort listeners is noise here (see the file).
import './abort-warnings.mjs';
import { latencySummary } from './stats.ts';

export type Mode = 'legacy' | 'auto';

export type CallFigures = {
  /** One caller, calls back to back. */
  serial: { calls: number; p50: number; p99: number };
  /** `callers` concurrent callers on one client. */
  concurrent: { callers: number; calls: number; perSecond: number; p50: number; p99: number; errors: number };
};

export async function connectHttp(base: string, mode: Mode): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1.0.0' }, { versionNegotiation: { mode } });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
  return client;
}

/** A fixture spawned and initialized directly (legacy: one initialize, no probe sibling). */
export async function connectStdio(fixture: string, args: string[], env: Record<string, string> = {}, stderr: 'ignore' | 'pipe' = 'ignore'): Promise<{ client: Client; pid: number | null }> {
  const client = new Client({ name: 'bench-direct', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } });
  const transport = new StdioClientTransport({ command: process.execPath, args: [fixture, ...args], env: { ...getDefaultEnvironment(), ...env }, stderr });
  await client.connect(transport);
  return { client, pid: transport.pid };
}

export async function callText(client: Client, name: string, args: Record<string, unknown> = {}): Promise<string> {
  const result = await client.callTool({ name, arguments: args });
  const first = (result.content as { type: string; text?: string }[] | undefined)?.[0];
  if (result.isError || first?.type !== 'text') throw new Error(`tool ${name} failed: ${JSON.stringify(result).slice(0, 300)}`);
  return first.text ?? '';
}

/** Warm-up, then `serialSeconds` of back-to-back calls, then `concurrentSeconds` with `callers` callers. */
export async function measureCalls(client: Client, tool: string, serialSeconds: number, concurrentSeconds: number, callers: number, warmupCalls = 20): Promise<CallFigures> {
  const args = { text: 'benchmark' };
  for (let i = 0; i < warmupCalls; i++) await callText(client, tool, args);

  const serialLatencies: number[] = [];
  let deadline = performance.now() + serialSeconds * 1000;
  while (performance.now() < deadline) {
    const t = performance.now();
    await callText(client, tool, args);
    serialLatencies.push(performance.now() - t);
  }

  const latencies: number[] = [];
  let errors = 0;
  const t0 = performance.now();
  deadline = t0 + concurrentSeconds * 1000;
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (performance.now() < deadline) {
        const t = performance.now();
        try {
          await callText(client, tool, args);
          latencies.push(performance.now() - t);
        } catch {
          errors++;
        }
      }
    }),
  );
  const elapsed = (performance.now() - t0) / 1000;
  const serial = latencySummary(serialLatencies);
  const concurrent = latencySummary(latencies);
  return {
    serial: { calls: serialLatencies.length, p50: serial.p50, p99: serial.p99 },
    concurrent: { callers, calls: latencies.length, perSecond: latencies.length / elapsed, p50: concurrent.p50, p99: concurrent.p99, errors },
  };
}

export type FloodStats = { bytes: number; lines: number; elapsedMs: number; mbps: number };

export async function floodStats(client: Client, tool: string): Promise<FloodStats> {
  return JSON.parse(await callText(client, tool)) as FloodStats;
}

/** MB/s (10^6 bytes) a flooder's stderr reader took between two `stats` answers. */
export function floodRate(s0: FloodStats, s1: FloodStats): number {
  return (s1.bytes - s0.bytes) / 1e3 / (s1.elapsedMs - s0.elapsedMs);
}
