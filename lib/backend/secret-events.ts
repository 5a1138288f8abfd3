// A backend worker's report with its server's configured secrets masked in the texts it carries
// (error messages, forwarded log lines and log fields, at any depth). Pure.
import type { RunnerEvent, WorkerEvent } from '../shared/messages/state-events.ts';
import { maskSecretValues } from '../shared/secret-values.ts';

/** Every string in `value` masked, objects' keys too, objects and arrays copied. */
export function maskDeep(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === 'string') return maskSecretValues(value, secrets);
  if (Array.isArray(value)) return value.map((item) => maskDeep(item, secrets));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [maskSecretValues(k, secrets), maskDeep(v, secrets)]));
  return value;
}

export function maskEventSecrets<E extends WorkerEvent | RunnerEvent>(event: E, secrets: readonly string[]): E {
  if (secrets.length === 0) return event;
  const mask = (text: string) => maskSecretValues(text, secrets);
  const e = event as WorkerEvent | RunnerEvent;
  switch (e.type) {
    case 'failed':
      return { ...e, error: { ...e.error, message: mask(e.error.message) } } as E;
    case 'exited':
    case 'ping':
      return (e.error ? { ...e, error: { ...e.error, message: mask(e.error.message) } } : e) as E;
    case 'log':
      return { ...e, msg: mask(e.msg), fields: maskDeep(e.fields, secrets) as Record<string, unknown> } as E;
    case 'backendLog':
      return { ...e, params: maskDeep(e.params, secrets) as Record<string, unknown> } as E;
    // No text of ours in these (what goes to clients is the backend's own content, as its results are).
    case 'connecting':
    case 'connected':
    case 'inventory':
    case 'stopped':
    case 'progress':
    case 'resourceUpdated':
    case 'taskStatus':
    case 'callHealth':
    case 'ready':
    case 'codeCache':
      return event;
    default: {
      // A new event must say here whether it carries text to mask.
      const unknown: never = e;
      return unknown;
    }
  }
}
