// `npm start`, before the service: refresh the worker bundle and, on first use, seed the
// working configuration .agent/mcp.json (gitignored; AGENT_START_CONFIG names another file)
// from examples/mcp.json, so that editing it, or `agent mcp tools disable ...`, never changes
// the tracked example. package.json then `exec`s the service, so signals reach it directly.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
await import('./bundle-workers.mjs');
const target = path.resolve(root, process.env.AGENT_START_CONFIG || path.join('.agent', 'mcp.json'));
if (!fs.existsSync(target)) {
  fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
  fs.copyFileSync(path.join(root, 'examples', 'mcp.json'), target);
  process.stderr.write(`npm start: created ${path.relative(root, target)} from examples/mcp.json (edit it freely: it is not tracked)\n`);
}
