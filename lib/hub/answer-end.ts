// Who wants to hear that an answer's bytes have all gone out, or that its client went away: a
// session is not idle while a call's stream or its GET stream is open. The pump reads every
// answer the hub's app gives it, so it is the one that knows when each ends.

const endings = new WeakMap<Response, () => void>();

/** Calls `ended` once the pump has finished with `response` (written out, cut, or abandoned); returns the response. */
export function onAnswerEnd(response: Response, ended: () => void): Response {
  endings.set(response, ended);
  return response;
}

/** The pump is done with `response`. */
export function answerEnded(response: Response): void {
  const ended = endings.get(response);
  if (!ended) return;
  endings.delete(response);
  ended();
}
