import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// The package root and version from package.json, found from both lib/ (tsx) and dist/lib/ (built).
function readPackage(): { root: string; version: string } {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = path.join(dir, 'package.json');
    if (fs.existsSync(candidate)) {
      const pkg = JSON.parse(fs.readFileSync(candidate, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'agent' && pkg.version) return { root: dir, version: pkg.version };
    }
    dir = path.dirname(dir);
  }
  return { root: process.cwd(), version: '0.0.0' };
}

const pkg = readPackage();
export const SERVICE_NAME = 'agent';
export const SERVICE_VERSION = pkg.version;
export const PACKAGE_ROOT = pkg.root;
