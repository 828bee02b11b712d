// The programs the WebRTC bench runs: Debian's Chromium (started as the
// binary itself, /usr/lib/chromium/chromium, not the /usr/bin wrapper script)
// and coturn's turnserver; with VP9 or AV1, ffmpeg too (it decodes the
// received frames for SSIM, ffmpeg-decode.ts). A missing one is an error naming the exact
// command that installs it, so the CLI prints one line and exits 2 before
// anything is started. Its code is ERR_UNREADABLE_FILE (a program the bench
// must run is missing), which every CLI maps to exit status 2.
import { accessSync, constants, statSync } from 'node:fs';
import { toolkitError } from '../common/errors.ts';

export const CHROMIUM_PATH = '/usr/lib/chromium/chromium';
export const TURNSERVER_PATH = '/usr/bin/turnserver';
export const FFMPEG_PATH = '/usr/bin/ffmpeg';

export interface Prerequisites {
  readonly chromium: string;
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
 * The paths of Chromium and turnserver, or an error listing the Debian
 * packages missing and the command that installs them (ERR_UNREADABLE_FILE). `paths` overrides the
 * defaults (tests point them at missing files).
 */
export function findPrerequisites(paths: Partial<Prerequisites> = {}, options: { ffmpeg?: boolean } = {}): Prerequisites {
  const chromium = paths.chromium ?? CHROMIUM_PATH;
  const turnserver = paths.turnserver ?? TURNSERVER_PATH;
  const ffmpeg = options.ffmpeg ? paths.ffmpeg ?? FFMPEG_PATH : undefined;
  const missing: string[] = [];
  if (!executable(chromium)) missing.push(`chromium (${chromium})`);
  if (!executable(turnserver)) missing.push(`coturn (${turnserver})`);
  if (ffmpeg !== undefined && !executable(ffmpeg)) missing.push(`ffmpeg (${ffmpeg})`);
  if (missing.length > 0) {
    const packages = missing.map((m) => m.split(' ')[0]).join(' ');
    throw toolkitError('ERR_UNREADABLE_FILE', `the WebRTC bench needs ${missing.join(' and ')}, not installed; install with: apt-get install -y ${packages}`);
  }
  return ffmpeg === undefined ? { chromium, turnserver } : { chromium, turnserver, ffmpeg };
}
