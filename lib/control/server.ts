// The service side of the control bus (decisions §8): where the socket lives, and a server that
// answers newline-delimited JSON requests with the service's handlers.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { AgentError, Code } from '../shared/errors.ts';
import { isOversized, LineReader, type ReadLine } from '../shared/line-reader.ts';
import type { Logger } from '../shared/logger.ts';
import {
  type ControlHandlers,
  type ControlRequest,
  type ControlResponse,
  ControlError,
  encodeControlMessage,
  errorResponse,
  MAX_CONTROL_LINE_BYTES,
  parseControlRequest,
  type RestartArgs,
} from './protocol.ts';

export const SOCKET_FILE_NAME = 'agent.sock';
/** Open control connections at most; more are closed at once (a CLI uses one, briefly). */
export const MAX_CONTROL_CONNECTIONS = 64;
/** At most one log line per this interval about refused connections. */
const DROP_LOG_INTERVAL_MS = 60_000;
/** sun_path holds 104 bytes on macOS/BSD (108 on Linux) including the terminating NUL. */
export const MAX_SOCKET_PATH_BYTES = 103;

export type SocketPathInput = {
  configDir: string;
  platform: NodeJS.Platform;
  tmpdir: string;
  /** Whether a socket can be created in `configDir`. */
  writable: boolean;
};

/** First 16 hex digits of sha256(configDir): names the fallback socket and the Windows pipe. */
export function configDirHash(configDir: string): string {
  return createHash('sha256').update(configDir, 'utf8').digest('hex').slice(0, 16);
}

/**
 * The pure rule: `<configDir>/agent.sock`, unless that path is longer than 103 bytes or the
 * directory is not writable, then `<tmpdir>/agent-<hash>.sock`. On Windows always the named pipe
 * `\\.\pipe\agent-<hash>`. `configDir` should be the resolved directory (`resolveConfigLocation`)
 * so the service and the CLI derive the same path.
 */
export function resolveSocketPath(input: SocketPathInput): string {
  const hash = configDirHash(input.configDir);
  if (input.platform === 'win32') return `\\\\.\\pipe\\agent-${hash}`;
  const preferred = path.posix.join(input.configDir, SOCKET_FILE_NAME);
  if (input.writable && Buffer.byteLength(preferred, 'utf8') <= MAX_SOCKET_PATH_BYTES) return preferred;
  return path.posix.join(input.tmpdir, `agent-${hash}.sock`);
}

/**
 * Whether a socket can be created in `dir`. A directory that does not exist yet counts as
 * writable when its nearest existing ancestor is (the service creates it, decisions §2).
 */
export function isDirWritable(dir: string): boolean {
  let current = path.resolve(dir);
  for (;;) {
    try {
      const stat = fs.statSync(current);
      if (!stat.isDirectory()) return false;
      fs.accessSync(current, fs.constants.W_OK | fs.constants.X_OK);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return false;
      const parent = path.dirname(current);
      if (parent === current) return false;
      current = parent;
    }
  }
}

/** The control socket of the service using `configDir` (checks the directory on disk). */
export function socketPath(configDir: string, platform: NodeJS.Platform = process.platform, tmpdir: string = os.tmpdir()): string {
  const writable = platform === 'win32' ? true : isDirWritable(configDir);
  return resolveSocketPath({ configDir, platform, tmpdir, writable });
}

export function isNamedPipe(socketFile: string): boolean {
  return /^\\\\[.?]\\pipe\\/i.test(socketFile);
}

/** Another live service already answers on the socket. */
export class ControlSocketInUseError extends AgentError {
  override readonly name = 'ControlSocketInUseError';
  constructor(readonly path: string) {
    super(Code.service_running, `Another agent service is already running on the control socket ${path}`);
  }
}

export type ControlServer = {
  readonly path: string;
  /** Stops listening, drops open connections and removes the socket file. Idempotent. */
  close(): Promise<void>;
};

type ControlLog = Pick<Logger, 'debug' | 'warn' | 'error'>;

export type ControlServerOptions = { maxConnections?: number; now?: () => number };

/** Runs one request through the handlers; never throws. */
export async function dispatchControlRequest(handlers: ControlHandlers, request: ControlRequest): Promise<ControlResponse> {
  try {
    let result: unknown;
    switch (request.op) {
      case 'status':
        result = await handlers.status(request.args);
        break;
      case 'restart':
        // parseControlRequest checked that args.server is a non-empty string.
        result = await handlers.restart(request.args as RestartArgs & Record<string, unknown>);
        break;
      case 'reload':
        result = await handlers.reload(request.args);
        break;
      case 'tools':
        result = await handlers.tools(request.args as { server: string });
        break;
      default: {
        // parseControlRequest accepts only known ops: a new one must be handled here.
        const unknown: never = request.op;
        throw new ControlError('bad_request', `unknown op ${JSON.stringify(unknown)}`);
      }
    }
    // `undefined` would vanish from the JSON; the response always carries `result`.
    return { id: request.id, ok: true, result: result ?? null };
  } catch (error) {
    if (error instanceof ControlError) return errorResponse(request.id, error.code, error.message);
    return errorResponse(request.id, Code.internal, error instanceof Error ? error.message : String(error));
  }
}

function encodeSafely(response: ControlResponse): string {
  try {
    return encodeControlMessage(response);
  } catch (error) {
    // A result JSON cannot carry (BigInt, cycles).
    return encodeControlMessage(errorResponse(response.id, Code.internal, `Result could not be serialized: ${(error as Error).message}`));
  }
}

function serveConnection(socket: net.Socket, handlers: ControlHandlers, log: ControlLog | undefined): void {
  const reader = new LineReader(MAX_CONTROL_LINE_BYTES);
  let inFlight = 0;
  let readEnded = false;

  const finishIfDone = (): void => {
    if (readEnded && inFlight === 0 && !socket.destroyed) socket.end();
  };
  const send = (response: ControlResponse): void => {
    if (!socket.destroyed && socket.writable) socket.write(encodeSafely(response));
  };
  const handleLine = (raw: ReadLine): void => {
    if (isOversized(raw)) return tooLong();
    const line = raw.toString('utf8').trim();
    if (line === '') return;
    const parsed = parseControlRequest(line);
    if (!parsed.ok) {
      send(parsed.response);
      return;
    }
    inFlight++;
    void dispatchControlRequest(handlers, parsed.request).then((response) => {
      inFlight--;
      if (!response.ok && response.error.code === Code.internal) log?.error({ code: Code.internal, op: parsed.request.op, err: response.error.message }, 'Control request failed');
      send(response);
      finishIfDone();
    });
  };
  const tooLong = (): void => {
    log?.warn({ code: Code.message_too_large, limit: MAX_CONTROL_LINE_BYTES }, 'Control connection closed: request line too long');
    socket.destroy();
  };

  socket.on('data', (chunk: Buffer) => {
    for (const line of reader.push(chunk)) {
      handleLine(line);
      if (socket.destroyed) return;
    }
    // A line already over the limit is not waited for.
    if (reader.overLimit) tooLong();
  });
  // The peer finished writing (e.g. `printf '...' | nc -U`): answer what is in flight, then end.
  socket.on('end', () => {
    readEnded = true;
    const last = reader.end();
    if (last) handleLine(last);
    finishIfDone();
  });
  socket.on('error', (error: NodeJS.ErrnoException) => {
    log?.debug({ code: error.code, err: error.message }, 'Control connection error');
  });
}

function listenOnce(server: net.Server, socketFile: string, narrowUmask: boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error): void => reject(error);
    server.once('error', onError);
    // bind() runs synchronously inside listen(); a narrowed umask closes the window before the
    // chmod below in which the socket would carry the process umask's permissions.
    const previous = narrowUmask ? process.umask(0o177) : undefined;
    try {
      server.listen(socketFile, () => {
        server.off('error', onError);
        resolve();
      });
    } finally {
      if (previous !== undefined) process.umask(previous);
    }
  });
}

/** Whether something accepts connections on `socketFile`; unsure (timeout) counts as alive. */
function probeLive(socketFile: string, timeoutMs = 2000): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const probe = net.createConnection(socketFile);
    const timer = setTimeout(() => {
      probe.destroy();
      resolve(true);
    }, timeoutMs);
    probe.once('connect', () => {
      clearTimeout(timer);
      probe.destroy();
      resolve(true);
    });
    probe.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (error.code === 'ECONNREFUSED' || error.code === 'ENOENT') resolve(false);
      else reject(error);
    });
  });
}

// A socket file left by a crashed service refuses connections: remove it. Anything else there
// (a live service, a regular file, another user's socket) is left alone and reported.
async function removeStaleSocket(socketFile: string, log: ControlLog | undefined): Promise<void> {
  let stat: fs.Stats;
  try {
    stat = await fs.promises.lstat(socketFile);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if (!stat.isSocket()) throw new AgentError(Code.unsafe_path, `Cannot create the control socket: ${socketFile} exists and is not a socket`);
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid) {
    throw new AgentError(Code.unsafe_path, `Cannot create the control socket: ${socketFile} belongs to another user (uid ${stat.uid})`);
  }
  if (await probeLive(socketFile)) throw new ControlSocketInUseError(socketFile);
  try {
    await fs.promises.unlink(socketFile);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  log?.warn({ path: socketFile }, 'Replaced a stale control socket left by a service that did not shut down');
}

/**
 * Listens on `socketFile` (mode 0600) and answers control requests with `handlers`. A stale
 * socket file from a crashed service is replaced; a live one makes this throw
 * `ControlSocketInUseError`. The socket's directory is created when missing.
 */
export async function startControlServer(socketFile: string, handlers: ControlHandlers, log?: ControlLog, { maxConnections = MAX_CONTROL_CONNECTIONS, now = Date.now }: ControlServerOptions = {}): Promise<ControlServer> {
  const pipe = isNamedPipe(socketFile);
  const narrowUmask = !pipe && process.platform !== 'win32' && isMainThread;
  if (!pipe) await fs.promises.mkdir(path.dirname(socketFile), { recursive: true, mode: 0o700 });

  const connections = new Set<net.Socket>();
  // Connections over the cap are closed by node (its `drop` event); they are reported, rarely.
  let dropped = 0;
  let lastDropLog = -Infinity;
  const onDrop = (): void => {
    dropped++;
    if (now() - lastDropLog < DROP_LOG_INTERVAL_MS) return;
    lastDropLog = now();
    log?.warn({ limit: maxConnections, refused: dropped }, `control bus: ${maxConnections} connections are open; refused ${dropped} more`);
    dropped = 0;
  };
  const create = (): net.Server => {
    const server = net.createServer({ allowHalfOpen: true }, (socket) => {
      connections.add(socket);
      socket.once('close', () => connections.delete(socket));
      serveConnection(socket, handlers, log);
    });
    server.maxConnections = maxConnections;
    server.on('drop', onDrop);
    return server;
  };

  let server = create();
  try {
    await listenOnce(server, socketFile, narrowUmask);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    if (pipe) throw new ControlSocketInUseError(socketFile);
    await removeStaleSocket(socketFile, log);
    server = create();
    try {
      await listenOnce(server, socketFile, narrowUmask);
    } catch (retryError) {
      // Another service won the race for the freed path.
      if ((retryError as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new ControlSocketInUseError(socketFile);
      throw retryError;
    }
  }

  let inode: number | undefined;
  if (!pipe) {
    try {
      await fs.promises.chmod(socketFile, 0o600);
      inode = (await fs.promises.lstat(socketFile)).ino;
    } catch (error) {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      throw error;
    }
  }
  server.on('error', (error: Error) => log?.error({ code: Code.internal, err: error.message, path: socketFile }, 'Control socket error'));

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of connections) socket.destroy();
      });
      if (pipe) return;
      // libuv removes the file on close; remove it ourselves if it is still our socket (and
      // never a newer service's socket at the same path).
      try {
        const stat = await fs.promises.lstat(socketFile);
        if (stat.ino === inode) await fs.promises.unlink(socketFile);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    })());

  return { path: socketFile, close };
}
