// Reports a failure that can repeat many times a second (every watch event, every accept while
// the process is out of file descriptors) at most once per interval, with the count of those
// not reported since (told with the next report). A monotonic clock: a wall clock set back would
// silence the reports until it caught up.
export function throttledReport<E>(report: (error: E, notReported: number) => void, intervalMs = 60_000, now: () => number = () => performance.now()): (error: E) => void {
  let last = Number.NEGATIVE_INFINITY;
  let notReported = 0;
  return (error) => {
    const at = now();
    if (at - last < intervalMs) return void notReported++;
    report(error, notReported);
    last = at;
    notReported = 0;
  };
}
