// Runs every uvu test file (fixtures and helpers excluded) and ends with `N passed, N failed`.
// Usage: node test/run.mjs [pattern]   e.g. `node test/run.mjs health` runs only matching files.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const pattern = process.argv[2] ?? '\\.test\\.ts$';
const child = spawn(process.execPath, ['--import', 'tsx', 'node_modules/uvu/bin.js', 'test', pattern, '-i', 'fixtures', '-i', 'helpers', '--no-color'], {
  cwd: root,
  stdio: ['ignore', 'pipe', 'inherit'],
});
let output = '';
child.stdout.on('data', (chunk) => {
  output += chunk;
  process.stdout.write(chunk);
});
child.on('close', (code, signal) => {
  const total = Number(/Total:\s+(\d+)/.exec(output)?.[1] ?? 0);
  const passed = Number(/Passed:\s+(\d+)/.exec(output)?.[1] ?? 0);
  const skipped = Number(/Skipped:\s+(\d+)/.exec(output)?.[1] ?? 0);
  // A crash before uvu's summary counts as one failure so it can never read as green.
  const failed = code === 0 ? total - passed - skipped : Math.max(1, total - passed - skipped);
  process.stdout.write(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
  process.exit(code === 0 && failed === 0 && total > 0 ? 0 : 1);
  void signal;
});
