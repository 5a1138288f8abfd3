// Response bodies whose source waits for the reader (a pull-driven stream with a byte high-water
// mark, like the legacy SSE transport's): the pump reads them only as the client takes bytes, so
// their own back-pressure and limits apply. Other bodies (the SDK's, which enqueue every event at
// once) are read as they come and held by the pump up to its backlog limit.
const paced = new WeakSet<ReadableStream<Uint8Array>>();

export function markPaced(body: ReadableStream<Uint8Array>): void {
  paced.add(body);
}

export function isPaced(body: ReadableStream<Uint8Array> | null): boolean {
  return body !== null && paced.has(body);
}
