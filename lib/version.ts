import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// The service version from package.json, found from both lib/ (tsx) and dist/lib/ (built).
function readVersion(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++) {
    const candidate = path.join(dir, 'package.json');
    if (fs.existsSync(candidate)) {
      const pkg = JSON.parse(fs.readFileSync(candidate, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'agent' && pkg.version) return pkg.version;
    }
    dir = path.dirname(dir);
  }
  return '0.0.0';
}

export const SERVICE_NAME = 'agent';
export const SERVICE_VERSION = readVersion();
