// Worker entry of a hub, the MCP face (decisions §1): everything is in lib/hub/hub.ts.
import { parentPort, workerData } from 'node:worker_threads';
import type { HubWorkerData } from '../lib/shared/messages/hub.ts';
import { startHub } from '../lib/hub/hub.ts';
import { lowerThreadPriority } from '../lib/shared/priority.ts';

if (!parentPort) throw new Error('workers/hub.ts must run in a worker thread');
const data = workerData as HubWorkerData;
// The MCP face runs below the probe path (decisions §1); its token pool threads inherit it.
lowerThreadPriority(data.settings.nice);
startHub(data.settings, data.pump, parentPort);
