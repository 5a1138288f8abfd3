/**
 * Wraps a task so that calling it while it runs does not start a second run alongside, nor get
 * lost: the run in progress is followed by exactly one more, however many calls came meanwhile.
 * `task` must not reject.
 */
export function rerunning(task: () => Promise<void>): () => void {
  let running = false;
  let again = false;
  return () => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    void (async () => {
      try {
        do {
          again = false;
          await task();
        } while (again);
      } finally {
        running = false;
      }
    })();
  };
}
