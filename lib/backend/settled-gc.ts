// An idle backend worker keeps the garbage of its start-up (1-2 MB: the bundle's start, the
// spawn, the MCP handshake) because V8 starts no major GC while nothing allocates. The service
// exposes `gc` to its workers (lib/main/expose-gc.ts) and each backend worker collects once, a
// moment after its first backend connected. Without `gc` (run from source, or outside the
// service) nothing happens.
import v8 from 'node:v8';

const gc = (globalThis as { gc?: () => void }).gc;
let scheduled = false;

export type Collected = { heapBeforeBytes: number; heapAfterBytes: number };

/** One full GC, `delayMs` from now, once per worker; `done` is told the heap in use around it. */
export function collectOnceSettled(delayMs = 1000, done: (collected: Collected) => void = () => undefined): void {
  if (scheduled || typeof gc !== 'function') return;
  scheduled = true;
  setTimeout(() => {
    const heapBeforeBytes = v8.getHeapStatistics().used_heap_size;
    gc();
    done({ heapBeforeBytes, heapAfterBytes: v8.getHeapStatistics().used_heap_size });
  }, delayMs).unref();
}
