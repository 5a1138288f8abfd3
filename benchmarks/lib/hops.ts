// The per-hop breakdown of traced calls: merges the client's timestamps with those the service's
// threads (trace-preload.mjs) and the fixture (fixtures/common.mjs) wrote, all on one clock
// (CLOCK_MONOTONIC, µs), and gives the median of each hop over the calls seen at every point.
import fs from 'node:fs';
import path from 'node:path';
import type { ClientTrace } from './load-client.ts';
import { percentile } from './stats.ts';

/** The points a call passes, in order, with what happens between one and the next. */
export const SERVICE_PATH: [point: string, hopToNext: string][] = [
  ['client.send', 'client: SDK builds the request'],
  ['client.fetch', 'client → main thread: HTTP out, loopback, head parsed'],
  ['main.request', 'main thread: Host/Origin check, body read, request pumped whole'],
  ['main.post.head', 'main → hub: MessagePort, the hub thread wakes'],
  ['hub.recv.head', 'hub: the rest of the body (none: the request came whole)'],
  ['hub.recv.end', 'hub: web Request, SDK server transport, JSON-RPC, zod, router'],
  ['hub.post.call', 'hub → backend worker: MessagePort'],
  ['backend.recv.call', 'backend worker: SDK client sends the request'],
  ['backend.write', 'backend worker → child: stdin pipe'],
  ['child.recv', 'child: SDK server parses, validates, calls echo'],
  ['child.handler', 'child: answer serialized'],
  ['child.write', 'child → backend worker: stdout pipe'],
  ['backend.read', 'backend worker: SDK client parses and validates the answer'],
  ['backend.post.outcome', 'backend worker → hub: MessagePort'],
  ['hub.recv.outcome', 'hub: SDK server answers, SSE event, response stream'],
  ['hub.post.chunk', 'hub → main thread: MessagePort'],
  ['main.recv.chunk', 'main thread → client: socket write, loopback, SDK client parses'],
  ['client.recv', ''],
];

export const DIRECT_PATH: [point: string, hopToNext: string][] = [
  ['client.send', 'client: SDK sends the request; stdin pipe'],
  ['child.recv', 'child: SDK server parses, validates, calls echo'],
  ['child.handler', 'child: answer serialized'],
  ['child.write', 'child → client: stdout pipe, SDK client parses'],
  ['client.recv', ''],
];

export type Hop = { from: string; to: string; what: string; p50Ms: number; p90Ms: number };
export type HopBreakdown = {
  /** Calls traced, and those seen at every point of the path. */
  calls: number;
  complete: number;
  /** End-to-end p50 of the complete calls, and the sum of the hops' p50s. */
  totalP50Ms: number;
  sumOfP50Ms: number;
  hops: Hop[];
};

type Marks = Map<string, number[]>;

/** Every `[seq, point, µs]` line of the trace files in `dir`, by call. */
function readMarks(dir: string): Map<number, Marks> {
  const calls = new Map<number, Marks>();
  const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.ndjson')) : [];
  for (const file of files) {
    for (const line of fs.readFileSync(path.join(dir, file), 'utf8').split('\n')) {
      if (!line) continue;
      const [seq, point, at] = JSON.parse(line) as [number, string, number];
      const marks = calls.get(seq) ?? new Map<string, number[]>();
      marks.set(point, [...(marks.get(point) ?? []), at]);
      calls.set(seq, marks);
    }
  }
  return calls;
}

export function breakdown(dir: string, client: ClientTrace, route: [string, string][]): HopBreakdown {
  const calls = readMarks(dir);
  const durations = route.slice(0, -1).map(() => [] as number[]);
  const totals: number[] = [];
  for (const [seq, sent, fetched, answered] of client) {
    const marks = calls.get(seq) ?? new Map<string, number[]>();
    marks.set('client.send', [sent]);
    if (fetched !== null) marks.set('client.fetch', [fetched]);
    marks.set('client.recv', [answered]);
    // Each point: its first time not before the previous point's (a response's first chunk may be a priming event).
    const times: number[] = [];
    for (const [point] of route) {
      const previous = times.length ? times[times.length - 1]! : -Infinity;
      const at = (marks.get(point) ?? []).filter((t) => t >= previous).sort((a, b) => a - b)[0];
      if (at === undefined) break;
      times.push(at);
    }
    if (times.length !== route.length) continue;
    for (let i = 0; i + 1 < times.length; i++) durations[i]!.push((times[i + 1]! - times[i]!) / 1000);
    totals.push((times[times.length - 1]! - times[0]!) / 1000);
  }
  const hops = route.slice(0, -1).map(([from, what], i) => ({ from, to: route[i + 1]![0], what, p50Ms: percentile(durations[i]!, 50), p90Ms: percentile(durations[i]!, 90) }));
  return {
    calls: client.length,
    complete: totals.length,
    totalP50Ms: percentile(totals, 50),
    sumOfP50Ms: hops.reduce((sum, h) => sum + h.p50Ms, 0),
    hops,
  };
}
