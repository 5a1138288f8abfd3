// The CLI side of the control bus (decisions §8): one request per connection.
import fs from 'node:fs';
import net from 'node:net';
import { AgentError, Code } from '../shared/errors.ts';
import { isOversized, LineReader } from '../shared/line-reader.ts';
import { type ControlOp, type ControlResponse, encodeControlMessage, isControlResponse } from './protocol.ts';
import { isNamedPipe } from './server.ts';

/** Nothing listens on the control socket: no service is running for this config dir (exit 3). */
export class NoServiceError extends AgentError {
  override readonly name = 'NoServiceError';
  constructor(
    readonly path: string,
    options?: ErrorOptions,
  ) {
    super(Code.no_service, `No running agent service found (control socket ${path})`, options);
  }
}

/** The service accepted the connection but did not answer in time. */
export class ControlTimeoutError extends AgentError {
  override readonly name = 'ControlTimeoutError';
  constructor(
    readonly path: string,
    readonly timeoutMs: number,
  ) {
    super(Code.control_timeout, `The agent service did not answer within ${timeoutMs} ms (control socket ${path})`);
  }
}

export type CallControlOptions = { timeoutMs?: number };

/** Upper bound on a response line, so a misbehaving peer cannot grow memory without end. */
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

let nextId = 1;

// A socket in a shared directory (the tmpdir fallback) could have been planted by another user:
// only talk to one owned by the current user.
function checkOwner(socketFile: string): void {
  const uid = process.getuid?.();
  if (uid === undefined || isNamedPipe(socketFile)) return;
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(socketFile);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new NoServiceError(socketFile, { cause: error });
    throw error;
  }
  if (stat.uid !== uid) throw new AgentError(Code.unsafe_path, `Refusing to use the control socket ${socketFile}: it belongs to another user (uid ${stat.uid})`);
}

/**
 * Sends one request and resolves with the service's response (`ok: false` responses resolve
 * too). Throws `NoServiceError` when nothing listens, `ControlTimeoutError` after `timeoutMs`.
 */
export function callControl(
  socketFile: string,
  op: ControlOp,
  args: Record<string, unknown> = {},
  { timeoutMs = 5000 }: CallControlOptions = {},
): Promise<ControlResponse> {
  return new Promise<ControlResponse>((resolve, reject) => {
    try {
      checkOwner(socketFile);
    } catch (error) {
      reject(error);
      return;
    }
    const id = nextId++;
    const socket = net.createConnection(socketFile);
    const reader = new LineReader(MAX_RESPONSE_BYTES);
    let settled = false;

    const finish = (error: Error | null, response?: ControlResponse): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(response!);
    };
    const timer = setTimeout(() => finish(new ControlTimeoutError(socketFile, timeoutMs)), timeoutMs);

    const handleLine = (line: string): void => {
      if (line.trim() === '') return;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        finish(new AgentError(Code.bad_response, `Malformed response on the control socket ${socketFile}`));
        return;
      }
      if (!isControlResponse(value)) {
        finish(new AgentError(Code.bad_response, `Unexpected response on the control socket ${socketFile}`));
        return;
      }
      // id null: the service could not read our request (bad_request); it is still our answer.
      if (value.id === id || value.id === null) finish(null, value);
    };

    socket.on('connect', () => socket.write(encodeControlMessage({ id, op, args })));
    const tooLarge = () => finish(new AgentError(Code.bad_response, `Response on the control socket ${socketFile} is too large`));
    socket.on('data', (chunk: Buffer) => {
      for (const line of reader.push(chunk)) {
        if (isOversized(line)) return tooLarge();
        handleLine(line.toString('utf8'));
        if (settled) return;
      }
      if (reader.overLimit) tooLarge();
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ECONNREFUSED') finish(new NoServiceError(socketFile, { cause: error }));
      else finish(error);
    });
    socket.on('close', () => finish(new AgentError(Code.bad_response, `The agent service closed the control connection without answering (${socketFile})`)));
  });
}
