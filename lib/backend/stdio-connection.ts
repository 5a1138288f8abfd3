// One stdio child as the runner connects to it: spawned in its own process group, its stderr fed
// to the backend's capture, and an MCP transport on its stdout and stdin.
import type { Readable } from 'node:stream';
import type { StdioSpec } from '../config/types.ts';
import type { Logger } from '../shared/logger.ts';
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
  /** The backend's stderr capture, which outlives its children. */
  capture: () => StderrCapture;
  log: Logger;
};

export function connectStdio(spec: StdioSpec, options: StdioOptions): StdioConnection {
  const { log, maxMessageBytes } = options;
  const child = spawnChild(spec);
  let lastLine = '';
  if (child.stderr) wireStderr(child.stderr, options.capture(), (line) => (lastLine = line));
  const transport = new PipeTransport(child.stdout, child.stdin, {
    name: spec.name,
    maxMessageBytes,
    onOversized: (bytes) => log.warn({ bytes, limit: maxMessageBytes }, 'skipped a message from the backend over the size limit'),
  });
  return { child, transport, lastStderrLine: () => lastLine };
}

// Feeds a child's stderr to the capture line by line.
function wireStderr(stderr: Readable, capture: StderrCapture, onLine: (line: string) => void): void {
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
}
