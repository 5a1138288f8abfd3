// The V8 code cache of the backend bundle, made once and shared by every backend worker
// (workers/script-loader.cjs). Held as a SharedArrayBuffer: giving it to a new worker shares the
// memory, so the main thread copies nothing per worker. The first worker without a cache makes one
// (and writes it under the state directory for the next start of the service); a cache V8
// refuses (another Node version, other V8 flags) is dropped and made again.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** workerData.loader of workers/script-loader.cjs: the bundle, the cache to compile it with, where to keep one made, and whether to make one. */
export type LoaderData = { bundle: string; cache: SharedArrayBuffer | null; cacheFile: string | null; make: boolean };

const PREFIX = 'backend-';

/** The cache file's name: the bundle's identity (path, size, time) and the runtime's, since V8 ties a cache to both. */
export function cacheFileName(bundle: string, stat: { size: number; mtimeMs: number }): string {
  const key = [bundle, stat.size, stat.mtimeMs, process.version, process.arch, process.execArgv.join(' ')].join('\0');
  return `${PREFIX}${createHash('sha256').update(key).digest('hex').slice(0, 16)}.bin`;
}

export class CodeCache {
  private data: SharedArrayBuffer | null = null;
  private readonly file: string | null;
  /** Settles once the cache on disk, if any, has been read. */
  readonly loaded: Promise<void>;

  /** `dir`: where the cache is kept between runs (null: in memory only). */
  constructor(
    readonly bundle: string,
    dir: string | null,
  ) {
    let file: string | null = null;
    try {
      file = dir ? path.join(dir, cacheFileName(bundle, fs.statSync(bundle))) : null;
    } catch {
      file = null;
    }
    this.file = file;
    this.loaded = file ? this.read(file) : Promise.resolve();
  }

  private async read(file: string): Promise<void> {
    try {
      const bytes = await fs.promises.readFile(file);
      this.keep(bytes);
    } catch {
      // None yet (or unreadable): the first worker makes one. Caches of older bundles go.
      const dir = path.dirname(file);
      const names = await fs.promises.readdir(dir).catch(() => [] as string[]);
      await Promise.all(names.filter((n) => n.startsWith(PREFIX) && n !== path.basename(file)).map((n) => fs.promises.rm(path.join(dir, n), { force: true }).catch(() => undefined)));
    }
  }

  private keep(bytes: Uint8Array): void {
    const shared = new SharedArrayBuffer(bytes.length);
    new Uint8Array(shared).set(bytes);
    this.data = shared;
  }

  /**
   * What a new backend worker's loader gets. A worker given a cache makes one too if V8 refuses it
   * (the loader makes none for a cache it accepted): the workers that start together all get the
   * refused cache before the first of them says so, and with two backends there is no later one.
   */
  forWorker(): LoaderData {
    return { bundle: this.bundle, cache: this.data, cacheFile: this.file, make: true };
  }

  /** A worker made a cache: the first one is kept (true when this one was). */
  offer(data: SharedArrayBuffer): boolean {
    if (this.data || data.byteLength === 0) return false;
    this.data = data;
    return true;
  }

  /** V8 refused the cache a worker was given: the next worker compiles from source and makes a new one. */
  refused(given: SharedArrayBuffer | null): void {
    if (given && this.data === given) this.data = null;
  }

  /** Bytes of the cache held (0: none yet). */
  get bytes(): number {
    return this.data?.byteLength ?? 0;
  }
}
