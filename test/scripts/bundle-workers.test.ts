// scripts/bundle-workers.mjs run again over a fresh bundle (npm test made one first): nothing is
// rewritten, so a service reading the bundles meanwhile (another test shard, `npm start` beside
// a running service) never sees a half-written file, and their code cache keeps its name.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ROOT } from '../helpers/service.ts';

const BUILT = path.join(ROOT, 'build/workers');
const identity = () =>
  Object.fromEntries(
    fs.readdirSync(BUILT).sort().map((name) => {
      const stat = fs.statSync(path.join(BUILT, name));
      return [name, `${stat.ino} ${stat.mtimeMs}`];
    }),
  );

test('bundle-workers :: an unchanged bundle is left as it is: same file, same modification time, no temporary left', () => {
  execFileSync(process.execPath, ['--import', 'tsx', 'scripts/bundle-workers.mjs'], { cwd: ROOT, stdio: 'pipe' });
  const before = identity();
  assert.ok(['backend.cjs', 'hub.mjs', 'ajv-validator.cjs'].every((name) => name in before), Object.keys(before).join());
  execFileSync(process.execPath, ['--import', 'tsx', 'scripts/bundle-workers.mjs'], { cwd: ROOT, stdio: 'pipe' });
  assert.equal(identity(), before);
});

test.run();
