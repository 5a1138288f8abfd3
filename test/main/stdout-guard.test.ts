// --transport stdio: a backend's stderr never goes to the protocol's stdout.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { BackendSpec } from '../../lib/config/types.ts';
import type { LoadedConfig } from '../../lib/config/types.ts';
import { keepStdoutForProtocol } from '../../lib/main/stdout-guard.ts';

const slot = (name: string, spec: Partial<BackendSpec> | undefined) => ({ name, disabled: false, tags: [], warnings: [], ...(spec ? { spec: { name, ...spec } as BackendSpec } : {}) });

test('stdout guard :: stderr 1 of a stdio server becomes pipe, with a warning naming it; everything else is kept', () => {
  const config: LoadedConfig = {
    file: '/c/mcp.json',
    dir: '/c',
    warnings: ['earlier'],
    servers: [slot('noisy', { type: 'stdio', stderr: 1 }), slot('file', { type: 'stdio', stderr: 7 }), slot('own', { type: 'stdio', stderr: 'inherit' }), slot('remote', { type: 'http' } as Partial<BackendSpec>), slot('broken', undefined)],
  };
  const kept = keepStdoutForProtocol(config);
  assert.equal(kept.servers.map((s) => (s.spec && s.spec.type === 'stdio' ? s.spec.stderr : null)), ['pipe', 7, 'inherit', null, null]);
  assert.equal(kept.warnings, [
    'earlier',
    '/c/mcp.json: mcpServers.noisy.stderr is 1, the service\'s stdout, which carries the protocol with --transport stdio: its stderr is captured instead (as "pipe")',
  ]);
  assert.is(config.servers[0]!.spec!.type === 'stdio' && config.servers[0]!.spec!.stderr, 1, 'the loaded configuration is not changed');
  const clean = { ...config, servers: config.servers.slice(1) };
  assert.is(keepStdoutForProtocol(clean), clean, 'nothing to change: the same object');
});

test.run();
