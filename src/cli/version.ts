// `--version` of every bin: the toolkit's version and, for the parts a bin
// uses, the versions in use: Node, libvpx (asked of the native VP8 addon, when
// it is built), Chromium and Firefox (asked of the binaries `salsify webrtc`
// and `salsify webrtc --browser firefox` would start, `chromium --version`,
// `firefox-esr --version`, neither of which opens a browser). What is missing
// is said, not an error: --version always succeeds.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describeLibvpx, libvpxBuild } from '../codec-bridge/native.ts';
import { BROWSER_PROGRAMS } from '../webrtc/prerequisites.ts';
import { writeStdout } from './files.ts';

/** What a bin reports beside its own version. */
export interface VersionParts {
  readonly libvpx?: boolean;
  readonly chromium?: boolean;
  readonly firefox?: boolean;
}

function toolkitVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { name?: string; version?: string };
    return `${pkg.version ?? 'unknown'} (${pkg.name ?? 'lowlat-video-toolkit'})`;
  } catch {
    return 'unknown (package.json not found)';
  }
}

function libvpxVersion(): string {
  try {
    return `${describeLibvpx(libvpxBuild())} (native VP8 addon)`;
  } catch (error) {
    return `libvpx: not available (${(error as Error).message.split('\n')[0]})`;
  }
}

/** The browser's own --version line, with its path (SALSIFY_CHROMIUM, SALSIFY_FIREFOX select others, as for salsify webrtc). */
function browserVersion(kind: 'chromium' | 'firefox'): string {
  const { path: defaultPath, package: pkg } = BROWSER_PROGRAMS[kind];
  const path = (kind === 'firefox' ? process.env.SALSIFY_FIREFOX : process.env.SALSIFY_CHROMIUM) || defaultPath;
  const needs = kind === 'firefox' ? 'salsify webrtc --browser firefox' : 'salsify webrtc';
  try {
    const text = execFileSync(path, ['--version'], { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return `${text} (${path})`;
  } catch {
    return `${pkg}: not found (${path}; ${needs} needs it: apt-get install -y ${pkg})`;
  }
}

/** The lines `PROGRAM --version` prints. */
export function versionText(program: string, parts: VersionParts = {}): string {
  const lines = [`${program} ${toolkitVersion()}`, `node ${process.version}`];
  if (parts.libvpx) lines.push(libvpxVersion());
  if (parts.chromium) lines.push(browserVersion('chromium'));
  if (parts.firefox) lines.push(browserVersion('firefox'));
  return lines.join('\n') + '\n';
}

/** Prints the version; the exit status (0). */
export async function printVersion(program: string, parts: VersionParts = {}): Promise<number> {
  await writeStdout(versionText(program, parts));
  return 0;
}
