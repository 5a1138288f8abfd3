// An idle backend worker keeps the garbage of its start-up (1-2 MB: the bundle's start, the
// spawn, the MCP handshake) because V8 starts no major GC while nothing allocates. The service
// exposes `gc` to its workers (lib/main/expose-gc.ts) and each backend worker collects once, a
// moment after its first backend connected. Without `gc` (run from source, or outside the
// service) nothing happens.
const gc = (globalThis as { gc?: () => void }).gc;
let scheduled = false;

/** One full GC, `delayMs` from now, once per worker. */
export function collectOnceSettled(delayMs = 1000): void {
  if (scheduled || typeof gc !== 'function') return;
  scheduled = true;
  setTimeout(() => gc(), delayMs).unref();
}
