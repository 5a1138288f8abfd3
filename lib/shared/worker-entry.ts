import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { PACKAGE_ROOT } from './version.ts';

// The newest modification time of the .ts, .mjs and .js files under `dirs`.
function newestSource(dirs: string[]): number {
  let newest = 0;
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/\.(ts|mjs|js)$/.test(entry.name)) newest = Math.max(newest, fs.statSync(full).mtimeMs);
    }
  };
  for (const dir of dirs) if (fs.existsSync(dir)) walk(dir);
  return newest;
}

/**
 * When the sources of the worker bundles (lib/, workers/) last changed: a bundle older than this
 * is stale. scripts/bundle-workers.mjs keeps its bundles at least this new.
 */
export function newestWorkerSource(): number {
  return newestSource([path.join(PACKAGE_ROOT, 'workers'), path.join(PACKAGE_ROOT, 'lib')]);
}

const bundleChecks = new Map<string, string | null>();

// build/workers/<name>.mjs or .cjs (scripts/bundle-workers.mjs) when it is newer than its sources.
function freshBundle(name: string): string | null {
  if (bundleChecks.has(name)) return bundleChecks.get(name)!;
  let found: string | null = null;
  for (const ext of ['.cjs', '.mjs']) {
    const bundle = path.join(PACKAGE_ROOT, 'build', 'workers', `${name}${ext}`);
    try {
      const built = fs.statSync(bundle).mtimeMs;
      if (built >= newestWorkerSource()) found = bundle;
    } catch {
      continue;
    }
    break;
  }
  bundleChecks.set(name, found);
  return found;
}

/** The loader of an ES module bundle (`.mjs`): lowers the thread's priority (workerData.nice), then imports it. */
export const MODULE_LOADER = path.join(PACKAGE_ROOT, 'workers', 'module-loader.mjs');

/** The loader that compiles a `.cjs` bundle with a shared V8 code cache (lib/main/code-cache.ts). */
export const SCRIPT_LOADER = path.join(PACKAGE_ROOT, 'workers', 'script-loader.cjs');

/**
 * The service's Node options for a worker that runs a bundle, without tsx's loader (`--import tsx`,
 * as `npm start` runs): a bundle needs none, and tsx in a worker starts an esbuild process that
 * nobody reaps once the worker has ended (a zombie per configuration load or backend restart).
 */
export function withoutTsx(execArgv: readonly string[]): string[] {
  const isTsx = (value: string | undefined) => value !== undefined && /^tsx(\/|$)/.test(value);
  const kept: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const arg = execArgv[i]!;
    const flag = /^--(import|require|loader|experimental-loader)(=(.*))?$/.exec(arg) ?? (arg === '-r' ? [arg, 'require'] : null);
    if (flag && flag[2] === undefined && isTsx(execArgv[i + 1])) i++;
    else if (!(flag && isTsx(flag[3]))) kept.push(arg);
  }
  return kept;
}

/**
 * Where a worker entry lives: the fresh bundle when there is one (a `.cjs` one through
 * SCRIPT_LOADER); else compiled `.js` beside us
 * in dist/, or the `.ts` source run through the tsx bootstrap (tsx does not register itself in
 * worker threads on Node 20; see stack.md).
 */
export function workerEntry(name: string, bootstrap = 'bootstrap'): { file: string; workerData: Record<string, unknown>; execArgv?: string[] } {
  const bundle = freshBundle(name);
  // A script bundle (the backend's) runs through the loader, which adds the code cache.
  if (bundle?.endsWith('.cjs')) return { file: SCRIPT_LOADER, workerData: { loader: { bundle, cache: null, cacheFile: null, make: false } }, execArgv: withoutTsx(process.execArgv) };
  // An ES module bundle loads through the module loader, which lowers the thread's priority first.
  if (bundle) return { file: MODULE_LOADER, workerData: { bundle: pathToFileURL(bundle).href }, execArgv: withoutTsx(process.execArgv) };
  const fromSource = import.meta.url.endsWith('.ts');
  const entry = new URL(`../../workers/${name}${fromSource ? '.ts' : '.js'}`, import.meta.url);
  if (!fromSource) return { file: fileURLToPath(entry), workerData: {} };
  return { file: fileURLToPath(new URL(`../../workers/${bootstrap}.mjs`, import.meta.url)), workerData: { entry: entry.href } };
}
