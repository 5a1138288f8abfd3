// Tool calls through the service's /mcp against calling a backend of the same kind directly over
// stdio, both with the v2 SDK client.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { latencySummary } from './stats.ts';

export type Mode = 'legacy' | 'auto';

export type CallFigures = {
  /** One caller, calls back to back. */
  serial: { calls: number; p50: number; p99: number };
  /** `callers` concurrent callers on one client. */
  concurrent: { callers: number; calls: number; perSecond: number; p50: number; p99: number; errors: number };
};

// undici's Request adds a listener to the transport's shared AbortSignal per request and removes
// it only when that Request is garbage-collected; a fast closed loop in a process with a large
// young generation passes 1,500 before a GC and Node warns of a leak once per request after that
// (a thousand lines in one round's log). The listeners do go at the next GC: that one warning is
// dropped here, every other warning is printed as Node would.
let warningsFiltered = false;
function dropAbortListenerWarnings(): void {
  if (warningsFiltered) return;
  warningsFiltered = true;
  const printers = process.listeners('warning');
  process.removeAllListeners('warning');
  process.on('warning', (warning) => {
    if (warning.name === 'MaxListenersExceededWarning' && warning.message.includes('abort listeners added to [AbortSignal]')) return;
    for (const print of printers) print(warning);
  });
}

export async function connectHttp(base: string, mode: Mode): Promise<Client> {
  dropAbortListenerWarnings();
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
