// One stdio child as the runner connects to it: spawned in its own process group, recorded for
// orphan cleanup when there is a state directory, its stderr fed to the backend's capture, and an
// MCP transport on its stdout and stdin. Once its exit has been seen, its record is removed and
// the listeners on its streams are taken off.
import type { Readable } from 'node:stream';
import type { StdioSpec } from '../config/types.ts';
import { forgetChild, procStartTime, recordChild } from '../shared/child-records.ts';
import type { Logger } from '../shared/logger.ts';
import { toWireError } from '../shared/messages.ts';
import { redactCredentials } from '../shared/sanitize.ts';
import { type SpawnedChild, spawnChild } from './child.ts';
import { LineSplitter } from './line-splitter.ts';
import { PipeTransport } from './pipe-transport.ts';
import type { StderrCapture } from './stderr-capture.ts';

export type StdioConnection = {
  child: SpawnedChild;
  transport: PipeTransport;
  /** The child's last stderr line: a hint for the messages about its end. */
  lastStderrLine: () => string;
};

export type StdioOptions = {
  maxMessageBytes: number;
  stateDir: string | null;
  /** The backend's stderr capture, which outlives its children. */
  capture: () => StderrCapture;
  log: Logger;
};

export function connectStdio(spec: StdioSpec, options: StdioOptions): StdioConnection {
  const { log, stateDir, maxMessageBytes } = options;
  const child = spawnChild(spec);
  const pid = child.pid;
  if (stateDir !== null && pid !== null && record(stateDir, spec, pid, log)) {
    void child.exited.then(() => {
      try {
        forgetChild(stateDir, pid);
      } catch (error) {
        log.warn({ err: redactCredentials(toWireError(error).message), pid }, 'could not remove the child record');
      }
    });
  }
  let lastLine = '';
  const unwire = child.stderr ? wireStderr(child.stderr, options.capture(), (line) => (lastLine = line)) : () => undefined;
  const transport = new PipeTransport(child.stdout, child.stdin, {
    name: spec.name,
    maxMessageBytes,
    onOversized: (bytes) => log.warn({ bytes, limit: maxMessageBytes }, 'skipped a message from the backend over the size limit'),
  });
  // The exit is seen after the pipes closed (execa waits for them): nothing more comes from them.
  void child.exited.then(() => {
    unwire();
    transport.release();
  });
  return { child, transport, lastStderrLine: () => lastLine };
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
    log.warn({ err: redactCredentials(toWireError(error).message), pid }, 'could not record the child for orphan cleanup');
    return false;
  }
}

// Feeds a child's stderr to the capture line by line; returns what takes the listeners off again.
function wireStderr(stderr: Readable, capture: StderrCapture, onLine: (line: string) => void): () => void {
  capture.setFlowControl(
    () => stderr.pause(),
    () => stderr.resume(),
  );
  const splitter = new LineSplitter((line, truncated) => {
    if (!line) return;
    onLine(line);
    capture.push(line, truncated);
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
