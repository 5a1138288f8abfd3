// A watched file's signature: what `stat` (following symlinks), `lstat` and `readlink` say. Two
// states are the same only when every part is; the changes a size-and-mtime poll missed (a file
// put back by mv, touch -r, a symlink switched between alike targets, chmod, a directory made a
// file again) all differ, and a file left alone does not.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type FileSignature, readSignature, sameSignature, signatureFrom } from '../../lib/config/file-signature.ts';
import { tempDir } from '../helpers/service.ts';

const stat = { dev: 1, ino: 10, size: 20, mtimeMs: 1000.5, ctimeMs: 1000.5, mode: 0o100644 };
const base = signatureFrom(stat, null);
const cases: [title: string, other: FileSignature, same: boolean][] = [
  ['the same stat', signatureFrom({ ...stat }, null), true],
  ['another inode (a file replaced by rename)', signatureFrom({ ...stat, ino: 11 }, null), false],
  ['another device', signatureFrom({ ...stat, dev: 2 }, null), false],
  ['another size', signatureFrom({ ...stat, size: 21 }, null), false],
  ['an older mtime (mv of an older copy, touch -r)', signatureFrom({ ...stat, mtimeMs: 999 }, null), false],
  ['only the ctime moved (rewritten, then touch -r)', signatureFrom({ ...stat, ctimeMs: 1001 }, null), false],
  ['another mode (chmod)', signatureFrom({ ...stat, mode: 0o100000 }, null), false],
  ['a symlink to it now', signatureFrom(stat, 'target-a'), false],
  ['missing', signatureFrom({ error: 'ENOENT' }, null), false],
];
for (const [title, other, same] of cases) {
  test(`file signature :: ${title}`, () => {
    assert.is(sameSignature(base, other), same);
    assert.is(sameSignature(other, base), same, 'symmetric');
  });
}

const errors: [title: string, a: FileSignature, b: FileSignature, same: boolean][] = [
  ['missing, still missing', signatureFrom({ error: 'ENOENT' }, null), signatureFrom({ error: 'ENOENT' }, null), true],
  ['missing, then permission denied', signatureFrom({ error: 'ENOENT' }, null), signatureFrom({ error: 'EACCES' }, null), false],
  ['a dangling symlink switched to another missing target', signatureFrom({ error: 'ENOENT' }, 'a'), signatureFrom({ error: 'ENOENT' }, 'b'), false],
];
for (const [title, a, b, same] of errors) test(`file signature :: ${title}`, () => assert.is(sameSignature(a, b), same));

// Real files: each step must change the signature; `settle` waits past the clock's granularity.
test('file signature :: real changes a size-and-mtime poll missed all differ; nothing changed, nothing differs', async () => {
  const dir = tempDir('agent-signature-');
  const file = path.join(dir, 'mcp.json');
  fs.writeFileSync(file, '{"tag": "AA"}');
  fs.copyFileSync(file, `${file}.orig`);
  const past = new Date(Date.now() - 60_000);
  fs.utimesSync(`${file}.orig`, past, past);
  let before = await readSignature(file);
  assert.ok(sameSignature(before, await readSignature(file)), 'unchanged');
  const step = async (what: string, change: () => void) => {
    change();
    const after = await readSignature(file);
    assert.not.ok(sameSignature(before, after), what);
    before = after;
  };
  await step('an edit', () => fs.writeFileSync(file, '{"tag": "BB"}'));
  await step('the older copy put back by mv', () => fs.renameSync(`${file}.orig`, file));
  const { mtime } = fs.statSync(file);
  await new Promise((r) => setTimeout(r, 20));
  await step('rewritten in place, then touch -r', () => {
    fs.writeFileSync(file, '{"tag": "CC"}');
    fs.utimesSync(file, mtime, mtime);
  });
  await step('chmod', () => fs.chmodSync(file, 0o600));
  for (const name of ['a', 'b']) {
    fs.writeFileSync(path.join(dir, name), '{"tag": "DD"}');
    fs.utimesSync(path.join(dir, name), past, past);
  }
  await step('a symlink to a', () => {
    fs.rmSync(file);
    fs.symlinkSync('a', file);
  });
  await step('switched to b, alike in size and mtime', () => {
    fs.symlinkSync('b', `${file}.new`);
    fs.renameSync(`${file}.new`, file);
  });
  await step('a symlink to nothing', () => {
    fs.symlinkSync('missing', `${file}.new`);
    fs.renameSync(`${file}.new`, file);
  });
  await step('a directory', () => {
    fs.rmSync(file);
    fs.mkdirSync(file);
  });
  await step('a file again', () => {
    fs.rmdirSync(file);
    fs.writeFileSync(file, '{"tag": "EE"}');
  });
});

test.run();
