import path from 'node:path';

export type ConfigLocationInput = {
  /** `--config` or `AGENT_CONFIG` (the flag wins; the caller resolves that). */
  config?: string | undefined;
  /** `--config-dir` or `AGENT_CONFIG_DIR`. */
  configDir?: string | undefined;
  platform: NodeJS.Platform;
  homedir: string;
  env: Record<string, string | undefined>;
  cwd: string;
};

export type ConfigLocation = {
  /** The configuration file to read. */
  file: string;
  /** Directory for backups, the control socket and the Runtime Scope `.env`. */
  dir: string;
};

export const CONFIG_FILE_NAME = 'mcp.json';

// The per-OS default directory of the spec: ~/.config/agent, or %APPDATA%\agent on Windows.
export function defaultConfigDir(platform: NodeJS.Platform, homedir: string, env: Record<string, string | undefined>): string {
  if (platform === 'win32') {
    const appData = env.APPDATA ?? path.win32.join(homedir, 'AppData', 'Roaming');
    return path.win32.join(appData, 'agent');
  }
  return path.posix.join(homedir, '.config', 'agent');
}

// decisions §2: the file is --config if given, else <dir>/mcp.json; the dir is --config-dir,
// else the directory of the --config file, else the OS default.
export function resolveConfigLocation(input: ConfigLocationInput): ConfigLocation {
  const p = input.platform === 'win32' ? path.win32 : path.posix;
  const file = input.config ? p.resolve(input.cwd, input.config) : undefined;
  const dir = input.configDir
    ? p.resolve(input.cwd, input.configDir)
    : file
      ? p.dirname(file)
      : defaultConfigDir(input.platform, input.homedir, input.env);
  return { file: file ?? p.join(dir, CONFIG_FILE_NAME), dir };
}
