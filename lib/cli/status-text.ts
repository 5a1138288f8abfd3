// How `agent mcp status` prints a running service's status view. Text from the service passes
// through redactCredentials: the operator's channel keeps paths and URLs (decisions §4). Pure.
import type { ReloadFacts, StatusView } from '../main/status-view.ts';
import { redactCredentials } from '../shared/sanitize.ts';
import { table } from './table.ts';

/** The view with its free text (last errors, the rejection reason) redacted, for --json. */
export function operatorView(view: StatusView): StatusView {
  const rejected = view.reload?.rejected;
  return {
    ...view,
    ...(view.reload ? { reload: { ...view.reload, rejected: rejected ? { ...rejected, reason: redactCredentials(rejected.reason) } : null } } : {}),
    servers: view.servers.map((s) => ({
      ...s,
      lastError: s.lastError === null ? null : redactCredentials(s.lastError),
      // A service older than this CLI sends none.
      entryError: s.entryError == null ? null : redactCredentials(s.entryError),
    })),
  };
}

// A rejected reload leaves the last good configuration in service (or none, before the first load).
function reloadLine(reload: ReloadFacts | undefined): string {
  if (!reload?.rejected) return '';
  const serving = reload.loadedAt ? `serving the configuration loaded at ${reload.loadedAt}` : 'no configuration has loaded yet';
  return `Configuration: the last reload was rejected at ${reload.rejected.at}: ${redactCredentials(reload.rejected.reason)}; ${serving}\n`;
}

export function liveText(view: StatusView): string {
  const rows = [['NAME', 'STATUS', 'SUPERVISION', 'ATTEMPT', 'NEXT RETRY', 'LAST EXIT', 'PID']];
  for (const s of view.servers) {
    const sup = s.supervision;
    // Neither a code nor a signal: the process never ran (a command not found).
    const exit = s.lastExit ? `${s.lastExit.signal ?? (s.lastExit.code === null ? 'did not start' : `code ${s.lastExit.code}`)} at ${s.lastExit.at}` : '-';
    rows.push([s.name, s.status, sup?.state ?? '-', sup ? `${sup.attempt}/${sup.limit ?? '∞'}` : '-', sup?.nextRetryAt ?? '-', exit, s.pid === null ? '-' : String(s.pid)]);
  }
  const errors = view.servers.filter((s) => s.lastError).map((s) => `  ${s.name}: ${redactCredentials(s.lastError)}`);
  const invalid = view.servers.filter((s) => s.entryError).map((s) => `  ${s.name}: ${redactCredentials(s.entryError)}`);
  return [
    `Live status of the service (pid ${view.pid}, version ${view.version}, ${view.configFile})\n`,
    reloadLine(view.reload),
    table(rows),
    invalid.length ? `Entries not taken (each runs on with its last good entry until the file is fixed):\n${invalid.join('\n')}\n` : '',
    errors.length ? `Last errors:\n${errors.join('\n')}\n` : '',
  ].join('');
}
