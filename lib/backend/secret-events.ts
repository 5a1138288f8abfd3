// A backend worker's report to the main thread with its server's configured secrets masked in
// the texts it carries (error messages, forwarded log lines). Pure.
import type { WorkerEvent } from '../shared/messages/state-events.ts';
import { maskSecretValues } from '../shared/secret-values.ts';

export function maskEventSecrets(event: WorkerEvent, secrets: readonly string[]): WorkerEvent {
  const mask = (text: string) => maskSecretValues(text, secrets);
  switch (event.type) {
    case 'failed':
      return { ...event, error: { ...event.error, message: mask(event.error.message) } };
    case 'exited':
    case 'ping':
      return event.error ? { ...event, error: { ...event.error, message: mask(event.error.message) } } : event;
    case 'log':
      return { ...event, msg: mask(event.msg), fields: Object.fromEntries(Object.entries(event.fields).map(([k, v]) => [k, typeof v === 'string' ? mask(v) : v])) };
    default:
      return event;
  }
}
