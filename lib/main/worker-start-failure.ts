// A worker thread that cannot even start (the process out of file descriptors or memory) reports
// it as an 'error' event on its Worker object. Piscina's pool (the config worker) can leave that
// event without a listener, and an unheard 'error' ends the process: the probes, the backends,
// everything, for a reload attempted at the wrong moment. Such an error is reported instead;
// any other uncaught exception still ends the process as Node would (stack on stderr, code 1).
export function survivesWorkerStartFailures(report: (error: Error) => void): void {
  process.on('uncaughtException', (error: Error & { code?: string }) => {
    if (error?.code === 'ERR_WORKER_INIT_FAILED') return report(error);
    process.stderr.write(`${error?.stack ?? String(error)}\n`);
    process.exit(1);
  });
}
