// The service's answers to the control bus ops (decisions §8): status, restart, reload.
import { ControlError, type ControlHandlers } from '../control/protocol.ts';
import { Code } from '../shared/errors.ts';
import type { BackendRegistry } from './registry.ts';
import type { StateTable } from './state-table.ts';
import { SERVICE_VERSION } from '../shared/version.ts';
import { type ReloadFacts, statusView } from './status-view.ts';
import { toolViews } from './tool-views.ts';

export type ControlDeps = { table: StateTable; registry: BackendRegistry; configFile: string; reload: () => Promise<{ ok: boolean; message: string }>; reloadFacts: () => ReloadFacts; address: () => string | null };

export function createControlHandlers({ table, registry, configFile, reload, reloadFacts, address }: ControlDeps): ControlHandlers {
  const view = () => statusView(table, Date.now(), { pid: process.pid, version: SERVICE_VERSION, configFile, address: address(), reload: reloadFacts() });
  return {
    status(args) {
      const all = view();
      if (typeof args.server !== 'string') return all;
      const one = all.servers.find((s) => s.name === args.server);
      if (!one) throw new ControlError(Code.unknown_server, `Server '${args.server}' not found in ${configFile}`);
      return { ...all, servers: [one] };
    },
    async restart({ server }) {
      const known = registry.describe(server);
      if (known === 'unknown') throw new ControlError(Code.unknown_server, `Server '${server}' not found in ${configFile}`);
      if (known === 'disabled') throw new ControlError(Code.not_running, `Server '${server}' is disabled in ${configFile}`);
      if (known === 'invalid') throw new ControlError(Code.not_running, `Server '${server}' has an invalid configuration and is not running: ${table.backends.get(server)?.lastError ?? ''}`);
      const handle = registry.handle(server)!;
      if (handle.isStopping) throw new ControlError(Code.not_running, `Server '${server}' is stopping`);
      await handle.restart();
      return { server, restarted: true };
    },
    async tools({ server }) {
      const backend = table.backends.get(server);
      if (!backend) {
        if (table.disabled.has(server)) throw new ControlError(Code.not_running, `Server '${server}' is disabled in ${configFile}: no live inventory`);
        throw new ControlError(Code.unknown_server, `Server '${server}' not found in ${configFile}`);
      }
      // The lists live in the backend's worker (and the hubs): asked for, off the probe path.
      return toolViews(backend, (await registry.handle(server)?.inventory()) ?? null);
    },
    async reload() {
      const outcome = await reload();
      if (!outcome.ok) throw new ControlError(Code.invalid_config, outcome.message);
      return { reloaded: true, message: outcome.message };
    },
  };
}
