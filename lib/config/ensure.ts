// Creates the directory and an empty valid mcp.json when the file does not exist (decisions §2).
// File system only, so the main thread can call it before anything else.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { ConfigLocation } from './paths.ts';

export const EMPTY_CONFIG_TEXT = '{\n  "mcpServers": {}\n}\n';

export async function ensureConfigFile(location: ConfigLocation): Promise<boolean> {
  try {
    await fs.access(location.file);
    return false;
  } catch {
    await fs.mkdir(path.dirname(location.file), { recursive: true });
    try {
      await fs.writeFile(location.file, EMPTY_CONFIG_TEXT, { flag: 'wx' });
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    }
  }
}

