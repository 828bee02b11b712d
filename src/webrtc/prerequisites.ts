// The programs the WebRTC bench runs: the browser of both ends, Debian's
// Chromium (started as the binary itself, /usr/lib/chromium/chromium, not
// the /usr/bin wrapper script) or Debian's firefox-esr (likewise the binary,
// /usr/lib/firefox-esr/firefox-esr); coturn's turnserver; with VP9 or AV1,
// ffmpeg too (it decodes the received frames for SSIM, ffmpeg-decode.ts). A
// missing one is an error naming the exact command that installs it, so the
// CLI prints one line and exits 2 before anything is started. Its code is
// ERR_UNREADABLE_FILE (a program the bench must run is missing), which every
// CLI maps to exit status 2.
import { accessSync, constants, statSync } from 'node:fs';
import { toolkitError } from '../common/errors.ts';
import type { BrowserKind } from './browser.ts';

export const CHROMIUM_PATH = '/usr/lib/chromium/chromium';
export const FIREFOX_PATH = '/usr/lib/firefox-esr/firefox-esr';
export const TURNSERVER_PATH = '/usr/bin/turnserver';
export const FFMPEG_PATH = '/usr/bin/ffmpeg';

/** Each browser's default executable and the Debian package that installs it. */
export const BROWSER_PROGRAMS: Record<BrowserKind, { readonly path: string; readonly package: string }> = {
  chromium: { path: CHROMIUM_PATH, package: 'chromium' },
  firefox: { path: FIREFOX_PATH, package: 'firefox-esr' },
};

/** Paths that override the defaults (tests point them at missing files). */
export interface ProgramPaths {
  readonly chromium?: string;
  readonly firefox?: string;
  readonly turnserver?: string;
  readonly ffmpeg?: string;
}

export interface Prerequisites {
  /** The browser both ends of the call run, and its executable. */
  readonly browser: BrowserKind;
  readonly browserPath: string;
  readonly turnserver: string;
  /** Set when asked for (VP9 and AV1 calls). */
  readonly ffmpeg?: string;
}

function executable(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The paths of the browser (Chromium unless `options.browser` says firefox)
 * and turnserver, or an error listing the Debian packages missing and the
 * command that installs them (ERR_UNREADABLE_FILE).
 */
export function findPrerequisites(paths: ProgramPaths = {}, options: { ffmpeg?: boolean; browser?: BrowserKind } = {}): Prerequisites {
  const browser = options.browser ?? 'chromium';
  const program = BROWSER_PROGRAMS[browser];
  const browserPath = paths[browser] ?? program.path;
  const turnserver = paths.turnserver ?? TURNSERVER_PATH;
  const ffmpeg = options.ffmpeg ? paths.ffmpeg ?? FFMPEG_PATH : undefined;
  const missing: { package: string; path: string }[] = [];
  if (!executable(browserPath)) missing.push({ package: program.package, path: browserPath });
  if (!executable(turnserver)) missing.push({ package: 'coturn', path: turnserver });
  if (ffmpeg !== undefined && !executable(ffmpeg)) missing.push({ package: 'ffmpeg', path: ffmpeg });
  if (missing.length > 0) {
    const packages = missing.map((m) => m.package).join(' ');
    throw toolkitError('ERR_UNREADABLE_FILE', `the WebRTC bench needs ${missing.map((m) => `${m.package} (${m.path})`).join(' and ')}, not installed; install with: apt-get install -y ${packages}`);
  }
  return ffmpeg === undefined ? { browser, browserPath, turnserver } : { browser, browserPath, turnserver, ffmpeg };
}
