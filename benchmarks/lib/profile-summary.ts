// Summarizes V8 .cpuprofile files: self time per function (top N) and per package/area, so a
// profile taken with `benchmarks/run.ts --cpu-prof` can be read without a GUI.
//   node --import tsx benchmarks/lib/profile-summary.ts <file.cpuprofile> [top]
import fs from 'node:fs';
import path from 'node:path';

type Node = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] };
type Profile = { nodes: Node[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number };

export function area(url: string): string {
  if (!url) return '(native/idle)';
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return nm[1]!;
  if (url.startsWith('node:')) return url;
  const m = /\/(lib|workers|bin)\/(.*)$/.exec(url);
  return m ? `${m[1]}/${m[2]}` : path.basename(url);
}

export function summarize(file: string, top = 15): string {
  const p = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  for (let i = 0; i < p.samples.length; i++) self.set(p.samples[i]!, (self.get(p.samples[i]!) ?? 0) + (p.timeDeltas[i] ?? 0));
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const fn = new Map<string, number>();
  const areas = new Map<string, number>();
  for (const [id, us] of self) {
    const n = byId.get(id)!;
    const name = `${n.callFrame.functionName || '(anonymous)'} ${area(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
    fn.set(name, (fn.get(name) ?? 0) + us);
    const a = n.callFrame.functionName === '(idle)' ? '(idle)' : n.callFrame.functionName === '(garbage collector)' ? '(gc)' : area(n.callFrame.url);
    areas.set(a, (areas.get(a) ?? 0) + us);
  }
  const pct = (us: number) => `${((us / total) * 100).toFixed(1).padStart(5)} %`;
  const lines = [`${path.basename(file)}: ${(total / 1e6).toFixed(2)} s sampled`, '  by area:'];
  for (const [a, us] of [...areas].sort((x, y) => y[1] - x[1]).slice(0, top)) lines.push(`    ${pct(us)}  ${a}`);
  lines.push('  by function (self):');
  for (const [f, us] of [...fn].sort((x, y) => y[1] - x[1]).slice(0, top)) lines.push(`    ${pct(us)}  ${f}`);
  return lines.join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === new URL(import.meta.url).pathname) {
  console.log(summarize(process.argv[2]!, Number(process.argv[3] ?? 15)));
}
