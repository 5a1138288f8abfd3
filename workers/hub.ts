// Worker entry of a hub, the MCP face (decisions §1): everything is in lib/hub/hub.ts. This thread
// was made by the main thread and starts at its priority: it lowers itself before it loads the
// hub's code, so that load (the SDK, zod, the catalog) already runs below the probe path, at every
// start and restart of a hub. Its token pool threads inherit the value.
import { parentPort, workerData } from 'node:worker_threads';
import type { HubWorkerData } from '../lib/shared/messages/hub.ts';
import { lowerThreadPriority } from '../lib/shared/priority.ts';

if (!parentPort) throw new Error('workers/hub.ts must run in a worker thread');
const port = parentPort;
const data = workerData as HubWorkerData;
lowerThreadPriority(data.settings.nice);
// Messages that come meanwhile wait in the ports: neither is started before startHub listens.
const { startHub } = await import('../lib/hub/hub.ts');
startHub(data.settings, data.pump, port);
