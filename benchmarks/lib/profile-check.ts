// The main thread must not run MCP work (issue 13): in its CPU profile, no frame of the MCP SDK,
// of zod, or of JSON-RPC handling (the hub's and backend workers' code, whose every function
// serves JSON-RPC, or anything named after it). Counts the samples with such a frame anywhere on
// their stack, and names the frames.
import fs from 'node:fs';
import path from 'node:path';
import { area } from './profile-summary.ts';

type Node = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] };
type Profile = { nodes: Node[]; samples: number[]; timeDeltas: number[] };

export type ProfileCheck = {
  file: string;
  /** Samples in the profile and how long they cover (idle included). */
  samples: number;
  sampledMs: number;
  /** Samples not idle, not the garbage collector, not "(program)". */
  busySamples: number;
  /** Samples with a forbidden frame on their stack. */
  forbiddenSamples: number;
  /** The forbidden frames, `function area:line`, with their category. */
  forbiddenFrames: { frame: string; category: string }[];
};

export function forbiddenCategory(frame: Node['callFrame']): string | null {
  const { url, functionName } = frame;
  if (url.includes('/@modelcontextprotocol/')) return 'MCP SDK';
  if (/\/node_modules\/zod\//.test(url)) return 'zod';
  if (/json-?rpc/i.test(functionName) || /json-?rpc/i.test(url)) return 'JSON-RPC';
  if (/\/(lib|workers)\/(hub|backend)\b|\/build\/workers\//.test(url)) return 'JSON-RPC (hub or backend worker code)';
  return null;
}

/** The V8 profile of the main thread (thread id 0) of process `pid` in `dir`, or null. */
export function mainThreadProfile(dir: string, pid: number): string | null {
  if (!fs.existsSync(dir)) return null;
  const file = fs.readdirSync(dir).find((f) => new RegExp(`^CPU\\.\\d+\\.\\d+\\.${pid}\\.0\\.\\d+\\.cpuprofile$`).test(f));
  return file ? path.join(dir, file) : null;
}

export function checkProfile(file: string): ProfileCheck {
  const p = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  // Whether a node's stack (itself and its callers) holds a forbidden frame, memoized.
  const tainted = new Map<number, boolean>();
  const frames = new Map<string, string>();
  const isTainted = (id: number): boolean => {
    const known = tainted.get(id);
    if (known !== undefined) return known;
    const node = byId.get(id)!;
    const category = forbiddenCategory(node.callFrame);
    if (category) frames.set(`${node.callFrame.functionName || '(anonymous)'} ${area(node.callFrame.url)}:${node.callFrame.lineNumber + 1}`, category);
    const up = parent.get(id);
    const value = category !== null || (up !== undefined && isTainted(up));
    tainted.set(id, value);
    return value;
  };
  for (const n of p.nodes) isTainted(n.id);
  let forbiddenSamples = 0;
  let busySamples = 0;
  for (const id of p.samples) {
    if (tainted.get(id)) forbiddenSamples++;
    if (!['(idle)', '(garbage collector)', '(program)'].includes(byId.get(id)!.callFrame.functionName)) busySamples++;
  }
  return {
    file: path.basename(file),
    samples: p.samples.length,
    sampledMs: p.timeDeltas.reduce((a, b) => a + b, 0) / 1000,
    busySamples,
    forbiddenSamples,
    forbiddenFrames: [...frames].map(([frame, category]) => ({ frame, category })),
  };
}
