// How deep a value nests, for what crosses between threads: a structured clone is recursive, and
// a worker that cannot read a message (its stack runs out at about 8,000 levels) drops it with no
// error the sender sees: a call would wait for ever. Pure, and no recursion of its own.

import { Code, rpcCode } from './errors.ts';

/** The answer for what nests too deep: -32602, `data.code` too_deep, the backend named where known. */
export function tooDeepError(message: string, backend?: string): { code: number; message: string; data: { code: typeof Code.too_deep; backend?: string } } {
  return { code: rpcCode(Code.too_deep), message, data: { code: Code.too_deep, ...(backend === undefined ? {} : { backend }) } };
}

/** Deeper than this, a call's params or a backend's answer are refused rather than sent to another thread. */
export const MAX_NESTING = 1_000;

/** Whether `value` has objects or arrays nested more than `limit` levels deep. Level by level (a third of the time of a walk with a stack). */
export function nestsDeeperThan(value: unknown, limit: number = MAX_NESTING): boolean {
  if (typeof value !== 'object' || value === null) return false;
  let level: object[] = [value];
  for (let depth = 1; level.length > 0; depth++) {
    if (depth > limit) return true;
    const next: object[] = [];
    for (const current of level) {
      if (Array.isArray(current)) {
        for (let i = 0; i < current.length; i++) {
          const child: unknown = current[i];
          if (typeof child === 'object' && child !== null) next.push(child);
        }
      } else {
        for (const child of Object.values(current)) if (typeof child === 'object' && child !== null) next.push(child);
      }
    }
    level = next;
  }
  return false;
}
