import v8 from 'node:v8';
import { SERVICE_VERSION } from '../../shared/version.ts';

// Process facts for /health. v8 heap statistics are cheaper than process.memoryUsage(), which reads RSS.
export function currentProcessFacts() {
  const heap = v8.getHeapStatistics();
  return {
    uptimeSeconds: process.uptime(),
    heapUsedBytes: heap.used_heap_size,
    heapTotalBytes: heap.total_heap_size,
    pid: process.pid,
    nodeVersion: process.version,
    platform: process.platform,
    arch: process.arch,
    version: SERVICE_VERSION,
  };
}
