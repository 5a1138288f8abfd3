// Editing mcp.json on disk for `agent mcp tools disable|enable`: the new text and a backup of
// the old one, rotated backups, atomic writes through a symlink, a missing file.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BACKUPS_KEPT, listBackups } from '../../lib/config/backups.ts';
import { editToolState } from '../../lib/config/edit.ts';
import { ConfigEditError, type ToolAction } from '../../lib/config/edit-plan.ts';
import { tempDir as scratchDir } from '../helpers/service.ts';

const tempDir = () => scratchDir('agent-config-edit-');


const SAMPLE = ['{', '  "mcpServers": {', '    "alpha": { "url": "http://localhost:9000/mcp" }', '  }', '}', ''].join('\n');

test('edit :: editToolState writes the file, a backup of the old content, and nothing when unchanged', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'mcp.json');
  fs.writeFileSync(file, SAMPLE);
  const outcome = await editToolState({ file, stateDir: dir, server: 'alpha', tool: 'alpha_agent_add', action: 'disable' });
  assert.ok(outcome.changed);
  assert.equal(JSON.parse(fs.readFileSync(file, 'utf8')).mcpServers.alpha.disabledTools, ['add']);
  assert.is(fs.readFileSync(outcome.backup!, 'utf8'), SAMPLE);
  assert.is(path.dirname(outcome.backup!), path.join(dir, 'backups'));
  const before = fs.readFileSync(file, 'utf8');
  const again = await editToolState({ file, stateDir: dir, server: 'alpha', tool: 'add', action: 'disable' });
  assert.not.ok(again.changed);
  assert.is(again.backup, undefined);
  assert.is(fs.readFileSync(file, 'utf8'), before);
  assert.is(fs.readdirSync(path.join(dir, 'backups')).length, 1, 'no backup when nothing changes');
  assert.equal(fs.readdirSync(dir).sort(), ['backups', 'mcp.json'], 'no temp file left behind');
});

test('edit :: backups are rotated: the newest 10 are kept', async () => {
  const dir = tempDir();
  const configDir = path.join(dir, 'conf');
  fs.mkdirSync(configDir);
  const file = path.join(configDir, 'mcp.json');
  fs.writeFileSync(file, JSON.stringify({ mcpServers: { a: { command: 'x' } } }, null, 2));
  fs.mkdirSync(path.join(configDir, 'backups'));
  fs.writeFileSync(path.join(configDir, 'backups', 'unrelated.txt'), 'keep me');
  let clock = Date.parse('2026-03-01T10:00:00.000Z');
  const now = () => new Date(clock);
  const stamps: string[] = [];
  for (let i = 0; i < 14; i++) {
    const action: ToolAction = i % 2 === 0 ? 'disable' : 'enable';
    const outcome = await editToolState({ file, stateDir: configDir, server: 'a', tool: 'echo', action, now });
    assert.ok(outcome.changed);
    stamps.push(path.basename(outcome.backup!));
    if (i !== 5) clock += 1000; // two backups in the same millisecond get a sequence number
  }
  const kept = (await listBackups(path.join(configDir, 'backups'), 'mcp.json')).map((p) => path.basename(p));
  assert.is(kept.length, BACKUPS_KEPT);
  assert.equal(kept, stamps.slice(-BACKUPS_KEPT), 'the newest ten, oldest first');
  assert.ok(stamps.includes('mcp.json.2026-03-01T10-00-05.000Z-1.bak'), stamps.join(' '));
  assert.ok(fs.existsSync(path.join(configDir, 'backups', 'unrelated.txt')), 'other files are not rotated away');
});

test('edit :: the write goes through a symlink: the link stays, the target keeps its mode', async () => {
  const dir = tempDir();
  const realDir = path.join(dir, 'real');
  const linkDir = path.join(dir, 'conf');
  fs.mkdirSync(realDir);
  fs.mkdirSync(linkDir);
  const target = path.join(realDir, 'mcp.json');
  fs.writeFileSync(target, JSON.stringify({ mcpServers: { a: { command: 'x' } } }, null, 2));
  fs.chmodSync(target, 0o640);
  const link = path.join(linkDir, 'mcp.json');
  fs.symlinkSync(path.relative(linkDir, target), link);
  const inodeBefore = fs.statSync(target).ino;

  const outcome = await editToolState({ file: link, stateDir: linkDir, server: 'a', tool: 'echo', action: 'disable' });
  assert.ok(outcome.changed);
  assert.ok(fs.lstatSync(link).isSymbolicLink(), 'the symlink is still a symlink');
  assert.is(fs.readlinkSync(link), path.relative(linkDir, target));
  assert.equal(JSON.parse(fs.readFileSync(target, 'utf8')).mcpServers.a.disabledTools, ['echo']);
  assert.is(fs.statSync(target).mode & 0o777, 0o640, 'the mode is kept');
  assert.is.not(fs.statSync(target).ino, inodeBefore, 'replaced by rename, not rewritten in place');
  assert.equal(fs.readdirSync(realDir), ['mcp.json'], 'no temp file left beside the target');
  assert.equal(fs.readdirSync(path.join(linkDir, 'backups')).length, 1, 'the backup goes to the config dir');
  assert.is(fs.statSync(outcome.backup!).mode & 0o777, 0o640, 'the backup has the file mode too');
});

test('edit :: a missing file is reported, not created', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'mcp.json');
  try {
    await editToolState({ file, stateDir: dir, server: 'a', tool: 'echo', action: 'disable' });
    assert.unreachable('should fail');
  } catch (error) {
    assert.instance(error, ConfigEditError);
    assert.is((error as ConfigEditError).code, 'unreadable');
    assert.match((error as Error).message, /no such file/);
  }
  assert.not.ok(fs.existsSync(file));
});

test.run();
