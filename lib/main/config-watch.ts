import fs from 'node:fs';
import path from 'node:path';
import { watch } from 'chokidar';
import { type FileSignature, readSignature, sameSignature } from '../config/file-signature.ts';

export const RELOAD_DEBOUNCE_MS = 250;
/** How often the watched paths are stat'ed. */
export const WATCH_POLL_MS = 200;

// Watches the configuration file's directory (not the file: see stack.md on atomic renames) and
// calls `onChange` once per burst of events touching mcp.json or its `.env`. A failure of the
// watch goes to `onError`: without a listener, chokidar's 'error' event would end the process and
// every backend with it.
//
// The paths are polled (a stat each per WATCH_POLL_MS, off the main thread), not watched with
// inotify: on an inotify event chokidar re-reads the whole directory whatever file it names, so a
// log written next to mcp.json (or any busy file there) cost the probe path a directory scan per
// write, 70 % of a core for a 2.8 MB/s log. A stat needs no file descriptor either, so the watch
// keeps working when the process is out of them.
//
// chokidar's polling reports a change only when the size differs or the mtime went up: a file put
// back by `mv` (older mtime, same size), `touch -r`, a symlink switched between alike targets, a
// `chmod` that makes it readable, or mcp.json made a directory and a file again went unseen, for
// good in that last case. Each poll also compares both files' signatures (file-signature.ts: a
// stat, an lstat, and a readlink for a symlink: 0.12 ms of CPU a poll for both, 0.06 % of a core
// at five polls a second) with the previous poll's.
export function watchConfig(
  file: string,
  onChange: () => void,
  onError: (error: Error) => void,
  debounceMs = RELOAD_DEBOUNCE_MS,
  /** The directory was removed and is there again: what the service keeps in it may need making again. */
  onDirectoryBack: () => void = () => undefined,
): { close(): Promise<void> } {
  const dir = path.dirname(file);
  const names = new Set([path.basename(file), '.env']);
  let timer: NodeJS.Timeout | null = null;
  let closed = false;
  // The directory removed (and perhaps made again later: a redeploy, `rm -rf` and a new checkout):
  // a watch on it has ended, so its return is polled for and a new watch started then.
  let awaiting: NodeJS.Timeout | null = null;
  const changed = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      onChange();
      if (!closed && !awaiting && !fs.existsSync(dir)) awaitDirectory();
    }, debounceMs);
  };
  const start = () => {
    const watcher = watch(dir, {
      depth: 0,
      ignoreInitial: true,
      usePolling: true,
      interval: WATCH_POLL_MS,
      // Editors and ConfigMaps replace files by rename or symlink swap; a short stability window avoids half-written reads.
      awaitWriteFinish: { stabilityThreshold: 50, pollInterval: 20 },
      ignored: (p: string) => p !== dir && !names.has(path.basename(p)) && !path.basename(p).startsWith('..'),
    });
    watcher.on('error', (error) => onError(error instanceof Error ? error : new Error(String(error))));
    watcher.on('all', changed);
    return watcher;
  };
  let watcher = start();
  const files = [file, path.join(dir, '.env')];
  let last: FileSignature[] | null = null;
  let sampling = false;
  const sample = async () => {
    if (sampling || closed) return;
    sampling = true;
    try {
      const now = await Promise.all(files.map(readSignature));
      if (last && !closed && now.some((signature, i) => !sameSignature(last![i]!, signature))) changed();
      last = now;
    } finally {
      sampling = false;
    }
  };
  void sample();
  const sampler = setInterval(() => void sample(), WATCH_POLL_MS);
  const awaitDirectory = () => {
    void watcher.close();
    awaiting = setInterval(() => {
      if (!fs.existsSync(dir)) return;
      clearInterval(awaiting!);
      awaiting = null;
      watcher = start();
      onDirectoryBack();
      changed(); // what was written there before this watch began
    }, WATCH_POLL_MS);
  };
  return {
    async close() {
      closed = true;
      clearInterval(sampler);
      if (timer) clearTimeout(timer);
      if (awaiting) clearInterval(awaiting);
      await watcher.close();
    },
  };
}
