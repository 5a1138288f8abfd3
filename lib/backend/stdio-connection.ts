// One stdio child as the runner connects to it: spawned in its own process group, recorded for
// orphan cleanup when there is a state directory, its stderr fed to the backend's capture, and an
// MCP transport on its stdout and stdin. Once its exit has been seen, its record is removed and
// the listeners on its streams are taken off.
import type { Readable } from 'node:stream';
import type { StdioSpec } from '../config/types.ts';
import { forgetChild, procStartTime, recordChild } from '../shared/child-records.ts';
import { lowerProcessPriority } from '../shared/priority.ts';
import { lowerChildAutogroup } from './child-autogroup.ts';
import type { Logger } from '../shared/logger.ts';
import { toWireError } from '../shared/messages/state-events.ts';
import { redactCredentials } from '../shared/sanitize.ts';
import { StdoutNoise } from './stdout-noise.ts';
import { Code } from '../shared/errors.ts';
import { type ChildExit, type SpawnedChild, spawnChild } from './child.ts';
import { LineSplitter } from './line-splitter.ts';
import { PipeTransport } from './pipe-transport.ts';
import type { StderrCapture } from './stderr-capture.ts';

// How long an ending waits for the child's exit status, which names the cause better.
const EXIT_EXPLAINS_MS = 300;
// The polite stop's grace for a child that keeps running without its pipes.
const BROKEN_PIPE_GRACE_MS = 1_000;

/** How a child's connection ended: it exited (or never spawned), or a pipe closed (`pipe`) and it was stopped. */
export type ChildEnd = { exit: ChildExit; pipe: string | null };

export type StdioConnection = {
  child: SpawnedChild;
  transport: PipeTransport;
  /** The child's last stderr line: a hint for the messages about its end. */
  lastStderr: () => { line: string; truncated: boolean };
  /** Settles at the first sign of the end: the child exited, or closed a pipe (stdout EOF, a broken stdin). */
  ending: Promise<void>;
  /**
   * Waits until the child is gone and says how it ended. The pipes of a child on its way out close
   * a moment before its exit is seen; a child that keeps running without them is stopped.
   */
  ended: () => Promise<ChildEnd>;
  /** The child's exit if it comes within a moment, else null. */
  exitSoon: () => Promise<ChildExit | null>;
};

export type StdioOptions = {
  maxMessageBytes: number;
  stateDir: string | null;
  /** The child runs at this nice value (below the probe path). */
  nice?: number;
  /** The backend's stderr capture, which outlives its children. */
  capture: () => StderrCapture;
  /** Masks the server's secrets in what it printed (an excerpt of a stray stdout line); `cut`: a secret may end past the text. */
  mask?: (text: string, cut: boolean) => string;
  log: Logger;
};

export function connectStdio(spec: StdioSpec, options: StdioOptions): StdioConnection {
  const { log, stateDir, maxMessageBytes } = options;
  const child = spawnChild(spec);
  const pid = child.pid;
  // The child inherited the worker thread's priority at fork; this makes it explicit. Its own
  // session is its own autogroup on many kernels: that group goes below the service too.
  if (pid !== null && options.nice) {
    lowerProcessPriority(pid, options.nice);
    const autogroup = lowerChildAutogroup(pid, options.nice);
    // Not one more write once the pid is free: it could be another process's by then.
    void child.reaped.then(() => autogroup.cancel());
    void autogroup.settled.then((result) => {
      if (result.outcome === 'failed' || result.outcome === 'busy') log.debug({ pid, outcome: result.outcome, ...('reason' in result ? { reason: result.reason } : {}) }, "the child's autogroup keeps its CPU weight");
    });
  }
  if (stateDir !== null && pid !== null && record(stateDir, spec, pid, log)) {
    void child.exited.then(() => {
      try {
        forgetChild(stateDir, pid);
      } catch (error) {
        log.warn({ code: Code.internal, err: redactCredentials(toWireError(error).message), pid }, 'could not remove the child record');
      }
    });
  }
  let last = { line: '', truncated: false };
  const unwire = child.stderr ? wireStderr(child.stderr, options.capture(), (line, truncated) => (last = { line, truncated })) : () => undefined;
  const mask = options.mask ?? ((text: string) => text);
  const noise = new StdoutNoise(({ fields, message }) => log.warn(fields, message), (text, cut) => redactCredentials(mask(text, cut)));
  const transport = new PipeTransport(child.stdout, child.stdin, {
    name: spec.name,
    maxMessageBytes,
    onOversized: (bytes) => log.warn({ code: Code.message_too_large, bytes, limit: maxMessageBytes }, 'skipped a message from the backend over the size limit'),
    onStray: (line) => noise.seen(line),
  });
  // The exit is seen after the pipes closed (execa waits for them): nothing more comes from them.
  void child.exited.then(() => {
    unwire();
    transport.release();
    noise.flush();
  });
  const exitSoon = () => Promise.race([child.exited, new Promise<null>((resolve) => setTimeout(resolve, EXIT_EXPLAINS_MS, null))]);
  let end: Promise<ChildEnd> | null = null;
  const ended = async (): Promise<ChildEnd> => {
    const pipe = await Promise.race([child.exited.then(() => null), transport.peerClosed]);
    const exit = pipe === null ? await child.exited : await exitSoon();
    if (exit) return { exit, pipe: null };
    await child.stop(BROKEN_PIPE_GRACE_MS);
    return { exit: await child.exited, pipe };
  };
  return {
    child,
    transport,
    lastStderr: () => last,
    ending: Promise.race([child.exited, transport.peerClosed]).then(() => undefined),
    ended: () => (end ??= ended()),
    exitSoon,
  };
}

// Synchronously, right after the spawn, so a crash of the service a moment later leaves a record.
// Without /proc (not Linux) there is no start time to tell the child from a later process: no record.
function record(stateDir: string, spec: StdioSpec, pid: number, log: Logger): boolean {
  const startTime = procStartTime(pid);
  if (startTime === null) return false;
  try {
    recordChild(stateDir, { pid, startTime, backend: spec.name, servicePid: process.pid, command: spec.command, recordedAt: new Date().toISOString() });
    return true;
  } catch (error) {
    log.warn({ code: Code.internal, err: redactCredentials(toWireError(error).message), pid }, 'could not record the child for orphan cleanup');
    return false;
  }
}

// Feeds a child's stderr to the capture line by line; returns what takes the listeners off again.
function wireStderr(stderr: Readable, capture: StderrCapture, onLine: (line: string, truncated: boolean) => void): () => void {
  const splitter = new LineSplitter((line, truncated) => {
    if (!line) return;
    onLine(line, truncated);
    capture.push(line, truncated);
  }, capture.limits.lineBytes, {
    countsOnly: () => capture.dropsEverything(),
    count: (lines) => capture.countDropped(lines),
    repeat: (lines) => capture.countRepeats(lines),
  });
  capture.attach({
    pause: () => stderr.pause(),
    resume: () => stderr.resume(),
    setLineBytes: (bytes) => (splitter.maxBytes = bytes),
  });
  const onData = (chunk: Buffer) => splitter.push(chunk);
  const onEnd = () => {
    splitter.flush();
    void capture.flush();
  };
  stderr.on('data', onData);
  stderr.once('end', onEnd);
  return () => {
    stderr.off('data', onData);
    stderr.off('end', onEnd);
  };
}
