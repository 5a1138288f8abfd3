// What ends a streamed answer (SSE) if its hub dies before finishing it: a JSON-RPC error for
// each request the stream answers. The hub prepares the bytes with the answer's head and the
// main thread, which never parses what it forwards, only writes them: the client's calls fail
// at once, saying why, instead of waiting for their timeout (an SDK client does not fail a
// request whose stream broke off).
import { hubFailedError } from '../shared/hub-failure.ts';
import { isPlainObject } from '../shared/plain-object.ts';

const frames = new WeakMap<Response, string>();
// The pump's end of a streamed answer whose requests change while it streams (legacy SSE).
const watchers = new WeakMap<Response, (frame: string | undefined) => void>();

/** The ids of the JSON-RPC requests in a body (one message or a batch). */
export function requestIds(body: unknown): (string | number)[] {
  const messages = Array.isArray(body) ? body : [body];
  const ids: (string | number)[] = [];
  for (const message of messages) {
    if (isPlainObject(message) && typeof message.method === 'string' && (typeof message.id === 'string' || typeof message.id === 'number')) ids.push(message.id);
  }
  return ids;
}

function frameFor(ids: Iterable<string | number>): string | undefined {
  const events = [...ids].map((id) => `event: message\ndata: ${hubFailedError(id)}\n\n`);
  // The blank lines first end an event the hub may have left unfinished.
  return events.length ? `\n\n${events.join('')}` : undefined;
}

/** Marks a streamed answer to the requests of `body` with its failure frame; returns the answer. */
export function withFailureFrame(response: Response, body: unknown): Response {
  if (!response.headers.get('content-type')?.startsWith('text/event-stream')) return response;
  const frame = frameFor(requestIds(body));
  if (frame) frames.set(response, frame);
  return response;
}

/** A stream that answers requests as they come (legacy SSE): the requests it owes an answer now. */
export function setFailureIds(response: Response, ids: Iterable<string | number>): void {
  const frame = frameFor(ids);
  if (frame) frames.set(response, frame);
  else frames.delete(response);
  watchers.get(response)?.(frame);
}

/** The failure frame of an answer, if it has one. */
export function failureFrame(response: Response): string | undefined {
  return frames.get(response);
}

/** Hears the failure frame of an answer change while it streams; returns how to stop. */
export function watchFailureFrame(response: Response, watch: (frame: string | undefined) => void): () => void {
  watchers.set(response, watch);
  return () => void watchers.delete(response);
}
