// The bytes of a request body that crossed from the main thread in one message. The Request the
// hub builds for it carries no body: fetch's Request turns any body into a ReadableStream, which
// took 60 of the 100 µs of building a 4 KiB call's Request on this machine. The hub reads a POST's
// JSON from these bytes; where it finds none, the SDK reads the Request's empty body and answers
// the same parse error (-32700) it gives a body that is not JSON.
const wholeBodies = new WeakMap<Request, Uint8Array>();

export function rememberWholeBody(request: Request, body: Uint8Array): void {
  wholeBodies.set(request, body);
}

/** The body's bytes when it came whole; undefined when it streams in (read the Request then). */
export function wholeBodyOf(request: Request): Uint8Array | undefined {
  return wholeBodies.get(request);
}

const utf8 = new TextDecoder();

/** The body as text: from the bytes that came whole, else read from the request. */
export async function bodyText(request: Request): Promise<string> {
  const body = wholeBodies.get(request);
  return body === undefined ? request.text() : utf8.decode(body);
}
