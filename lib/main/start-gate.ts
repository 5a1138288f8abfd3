// How many backend starts may be in flight at once (a worker's creation and load, then, for a
// backend that boots a local process, its first start up to connected, failed or stopped). Pure: each step takes the gate and returns
// the next gate and the starts that may begin now, in the order they were asked for. Loading a
// worker and booting its backend's process is CPU work; on 2 cores fifty at once thrash and
// one at a time is slow (benchmarks/README.md, "start concurrency").

/** `limit` 0 = no limit. */
export type StartGate = { readonly limit: number; readonly running: readonly string[]; readonly waiting: readonly string[] };
export type GateStep = { gate: StartGate; begin: string[] };

export function newStartGate(limit: number): StartGate {
  return { limit, running: [], waiting: [] };
}

// Moves waiting starts into the free slots.
function fill(limit: number, running: string[], waiting: string[]): GateStep {
  const free = limit === 0 ? waiting.length : Math.max(0, limit - running.length);
  const begin = waiting.slice(0, free);
  return { gate: { limit, running: [...running, ...begin], waiting: waiting.slice(begin.length) }, begin };
}

/** `id` wants to start. Asking again while waiting or running changes nothing. */
export function askStart(gate: StartGate, id: string): GateStep {
  if (gate.running.includes(id) || gate.waiting.includes(id)) return { gate, begin: [] };
  return fill(gate.limit, [...gate.running], [...gate.waiting, id]);
}

/** `id`'s start is over (its backend connected or failed, its worker died, or it was stopped) or no longer wanted: its slot or its place goes. */
export function endStart(gate: StartGate, id: string): GateStep {
  if (!gate.running.includes(id) && !gate.waiting.includes(id)) return { gate, begin: [] };
  return fill(
    gate.limit,
    gate.running.filter((r) => r !== id),
    gate.waiting.filter((w) => w !== id),
  );
}

/** A new limit (a smaller one lets the running finish; nobody is stopped). */
export function setLimit(gate: StartGate, limit: number): GateStep {
  return fill(limit, [...gate.running], [...gate.waiting]);
}
