import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  CONFIG_FILE_NAME,
  type ConfigLocation,
  type ConfigLocationInput,
  defaultConfigDir,
  resolveConfigLocation,
} from '../../lib/config/paths.ts';

const posix = { platform: 'linux', homedir: '/home/ann', env: {}, cwd: '/work/project' } satisfies ConfigLocationInput;
const win = {
  platform: 'win32',
  homedir: 'C:\\Users\\ann',
  env: { APPDATA: 'C:\\Users\\ann\\AppData\\Roaming' },
  cwd: 'D:\\project',
} satisfies ConfigLocationInput;

function run(input: ConfigLocationInput, expected: ConfigLocation): void {
  assert.equal(resolveConfigLocation(input), expected);
}

test('paths :: the file name is mcp.json', () => {
  assert.is(CONFIG_FILE_NAME, 'mcp.json');
});

const cases: Array<[name: string, input: ConfigLocationInput, expected: ConfigLocation]> = [
  ['linux default', posix, { file: '/home/ann/.config/agent/mcp.json', dir: '/home/ann/.config/agent' }],
  ['macOS default is ~/.config/agent too', { ...posix, platform: 'darwin', homedir: '/Users/ann' }, { file: '/Users/ann/.config/agent/mcp.json', dir: '/Users/ann/.config/agent' }],
  ['Windows default is %APPDATA%\\agent', win, { file: 'C:\\Users\\ann\\AppData\\Roaming\\agent\\mcp.json', dir: 'C:\\Users\\ann\\AppData\\Roaming\\agent' }],
  ['Windows without APPDATA falls back to <home>\\AppData\\Roaming', { ...win, env: {}, homedir: 'C:\\Users\\bob' }, { file: 'C:\\Users\\bob\\AppData\\Roaming\\agent\\mcp.json', dir: 'C:\\Users\\bob\\AppData\\Roaming\\agent' }],
  ['--config-dir absolute: mcp.json inside it', { ...posix, configDir: '/etc/agent' }, { file: '/etc/agent/mcp.json', dir: '/etc/agent' }],
  ['--config-dir relative resolves against cwd', { ...posix, configDir: 'cfg' }, { file: '/work/project/cfg/mcp.json', dir: '/work/project/cfg' }],
  ['--config-dir with trailing slash and dots is normalized', { ...posix, configDir: './a/../cfg/' }, { file: '/work/project/cfg/mcp.json', dir: '/work/project/cfg' }],
  ['--config absolute: dir is the file directory', { ...posix, config: '/srv/conf/servers.json' }, { file: '/srv/conf/servers.json', dir: '/srv/conf' }],
  ['--config relative resolves against cwd', { ...posix, config: 'conf/servers.json' }, { file: '/work/project/conf/servers.json', dir: '/work/project/conf' }],
  ['--config bare file name lives in cwd', { ...posix, config: 'mine.json' }, { file: '/work/project/mine.json', dir: '/work/project' }],
  ['--config and --config-dir: file from --config, dir from --config-dir', { ...posix, config: '/srv/conf/servers.json', configDir: '/var/agent' }, { file: '/srv/conf/servers.json', dir: '/var/agent' }],
  ['empty strings count as not given', { ...posix, config: '', configDir: '' }, { file: '/home/ann/.config/agent/mcp.json', dir: '/home/ann/.config/agent' }],
  ['Windows --config relative resolves against cwd', { ...win, config: 'conf\\servers.json' }, { file: 'D:\\project\\conf\\servers.json', dir: 'D:\\project\\conf' }],
  ['Windows --config-dir', { ...win, configDir: 'E:\\agent' }, { file: 'E:\\agent\\mcp.json', dir: 'E:\\agent' }],
  ['Windows ignores HOME-style env for the default', { ...win, env: { APPDATA: 'C:\\Roam', HOME: '/home/x' } }, { file: 'C:\\Roam\\agent\\mcp.json', dir: 'C:\\Roam\\agent' }],
];

for (const [name, input, expected] of cases) {
  test(`paths :: ${name}`, () => run(input, expected));
}

test('paths :: defaultConfigDir ignores APPDATA outside Windows', () => {
  assert.is(defaultConfigDir('linux', '/home/ann', { APPDATA: '/nope' }), '/home/ann/.config/agent');
  assert.is(defaultConfigDir('win32', 'C:\\Users\\ann', { APPDATA: 'C:\\Data' }), 'C:\\Data\\agent');
});

test.run();
