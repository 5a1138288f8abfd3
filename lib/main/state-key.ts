// The service's own secret for signing what clients must hand back unaltered (the requestState
// of input_required answers): 32 random bytes in `<stateDir>/request-state.key` (0600), made on
// first start and kept, so every hub of this service signs and checks with the same key.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export const STATE_KEY_FILE = 'request-state.key';

export function loadStateKey(stateDir: string): Buffer {
  const file = path.join(stateDir, STATE_KEY_FILE);
  try {
    const key = fs.readFileSync(file);
    if (key.length >= 32) return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  fs.mkdirSync(stateDir, { recursive: true });
  const key = randomBytes(32);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, key, { mode: 0o600 });
  fs.renameSync(tmp, file);
  return key;
}
