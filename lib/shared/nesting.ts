// How deep a value nests, for what crosses between threads: a structured clone is recursive, and
// a worker that cannot read a message (its stack runs out at about 8,000 levels) drops it with no
// error the sender sees: a call would wait for ever. Pure; a walk with its own stack, no recursion.

/** Deeper than this, a call's params or a backend's answer are refused rather than sent to another thread. */
export const MAX_NESTING = 1_000;

/** Whether `value` has objects or arrays nested more than `limit` levels deep. */
export function nestsDeeperThan(value: unknown, limit: number = MAX_NESTING): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const values: object[] = [value];
  const depths: number[] = [1];
  while (values.length > 0) {
    const current = values.pop()!;
    const depth = depths.pop()!;
    if (depth > limit) return true;
    for (const key in current) {
      const child = (current as Record<string, unknown>)[key];
      if (typeof child === 'object' && child !== null) {
        values.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}
