// One headless browser for the bench: Chromium (the default) or Firefox,
// driven by puppeteer-core.
//
// Chromium is driven over a pipe (no debugging port is opened). Every flag is
// ours (puppeteer's defaults are off), so the list below is the whole command
// line: headless without GPU, no background networking, component updates,
// sync or first-run work that would compete for the CPU, no throttling of a
// page in the background, a fake camera playing the bench's clip, and
// loopback allowed as a peer connection address (a machine with only a
// loopback interface has nothing else).
//
// Firefox (Debian's firefox-esr) is driven over WebDriver BiDi, which
// puppeteer reaches through a WebSocket on 127.0.0.1 at a port Firefox picks
// (--remote-debugging-port=0: Firefox has no pipe transport). Its settings
// are preferences written into the profile (firefoxPrefs). Firefox has no
// file-backed fake camera (its fake device, media.navigator.streams.fake,
// draws its own pattern, with no barcode), so the Firefox sender page makes
// its camera itself from the same clip (pages.ts: a canvas captureStream).
// Chromium ends when its pipe closes, so a bench killed with SIGKILL takes
// it along; Firefox does not notice its WebSocket closing, so it is started
// through util-linux's setpriv with a parent-death signal (SIGKILL when the
// bench's process ends, however it ends).
//
// Each browser gets a fresh profile directory, removed when it closes.
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'puppeteer-core';
import { toolkitError } from '../common/errors.ts';
import { ownedTempPrefix } from './stale-temp.ts';

/**
 * puppeteer-core, loaded when a browser is first needed: it is an optional
 * dependency (33 MB that only the WebRTC bench uses), so a missing one is one
 * line naming the command that installs it (exit status 2), not a failure of
 * every salsify command at start.
 */
async function loadPuppeteer() {
  try {
    return (await import('puppeteer-core')).default;
  } catch (error) {
    throw toolkitError('ERR_UNREADABLE_FILE', 'the WebRTC bench needs the optional package puppeteer-core, not installed; install with: npm install puppeteer-core', error);
  }
}

/** The browsers `salsify webrtc --browser` runs. */
export const BROWSER_KINDS = ['chromium', 'firefox'] as const;
export type BrowserKind = (typeof BROWSER_KINDS)[number];

/** "Chromium", "Firefox": the browser's name in messages. */
export function browserName(kind: BrowserKind): string {
  return kind === 'firefox' ? 'Firefox' : 'Chromium';
}

export interface BrowserOptions {
  readonly kind?: BrowserKind;
  readonly executable: string;
  /** The Y4M file the fake camera plays (looped; Chromium only, see above). */
  readonly cameraFile: string;
  /** Names the browser in messages ("sender", "receiver"). */
  readonly role: string;
  /** Milliseconds to wait for the browser to start (default 60 s: the machine may be loaded). */
  readonly timeoutMs?: number;
}

export interface BenchBrowser {
  readonly kind: BrowserKind;
  readonly browser: Browser;
  readonly role: string;
  readonly pid: number | undefined;
  readonly profileDir: string;
  /** The version string as the browser reports it: "Chrome/156.0.8078.114", "firefox/153.8.0". */
  readonly version: string;
  /** Closes the browser (killing it if it does not close within a few seconds) and removes its profile. */
  close(): Promise<void>;
}

export function chromiumArgs(profileDir: string, cameraFile: string): string[] {
  const args = [
    '--headless',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--no-default-browser-check',
    '--disable-default-apps',
    '--disable-extensions',
    '--disable-background-timer-throttling',
    '--disable-renderer-backgrounding',
    '--disable-backgrounding-occluded-windows',
    '--use-fake-device-for-media-stream',
    '--use-fake-ui-for-media-stream',
    `--use-file-for-fake-video-capture=${cameraFile}`,
    '--allow-loopback-in-peer-connection',
    // Host candidates as addresses, not mDNS names: a direct call (--path p2p) between a browser in a network namespace and one on the host cannot resolve mDNS.
    '--disable-features=WebRtcHideLocalIpsWithMdns',
    '--remote-debugging-pipe',
    `--user-data-dir=${profileDir}`,
  ];
  // As root, Chromium refuses to start without --no-sandbox.
  if (process.getuid?.() === 0) args.unshift('--no-sandbox');
  return args;
}

/**
 * Firefox's preferences for the bench (beside those puppeteer writes into
 * every profile it makes, which turn off updates, telemetry and first-run
 * pages): loopback host candidates gathered and shown as addresses, not
 * mDNS names; media autoplay allowed; timers at full precision (by default
 * Firefox coarsens performance.now(), which the call's clocks rest on) and
 * not throttled.
 */
export function firefoxPrefs(): Record<string, unknown> {
  return {
    'media.peerconnection.ice.loopback': true,
    'media.peerconnection.ice.obfuscate_host_addresses': false,
    'media.autoplay.default': 0,
    'media.autoplay.blocking_policy': 0,
    'privacy.reduceTimerPrecision': false,
    'privacy.reduceTimerPrecision.unconditional': false,
    'dom.timeout.enable_budget_timer_throttling': false,
    'dom.min_background_timeout_value': 0,
  };
}

export function firefoxArgs(profileDir: string): string[] {
  return ['--headless', '--no-remote', '--profile', profileDir, 'about:blank'];
}

/** util-linux's setpriv (Debian's util-linux is essential), which starts Firefox with a parent-death signal. */
export const SETPRIV_PATH = '/usr/bin/setpriv';

/**
 * The program and arguments that start Firefox so that it dies with the
 * bench's process: setpriv --pdeathsig KILL FIREFOX ARGS (setpriv execs
 * Firefox, so the pid puppeteer watches is Firefox's); Firefox itself where
 * setpriv is missing.
 */
export function firefoxCommand(executable: string, profileDir: string, setpriv = SETPRIV_PATH): { executablePath: string; args: string[] } {
  try {
    accessSync(setpriv, constants.X_OK);
    return { executablePath: setpriv, args: ['--pdeathsig', 'KILL', executable, ...firefoxArgs(profileDir)] };
  } catch {
    return { executablePath: executable, args: firefoxArgs(profileDir) };
  }
}

type Puppeteer = Awaited<ReturnType<typeof loadPuppeteer>>;

async function launch(puppeteer: Puppeteer, kind: BrowserKind, options: BrowserOptions, profileDir: string): Promise<Browser> {
  const common = {
    executablePath: options.executable,
    headless: true,
    ignoreDefaultArgs: true,
    // The bench ends its browsers itself, on its own signals.
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
    timeout: options.timeoutMs ?? 60_000,
    protocolTimeout: 120_000,
  } as const;
  if (kind === 'firefox') {
    return puppeteer.launch({
      ...common,
      browser: 'firefox',
      ...firefoxCommand(options.executable, profileDir),
      extraPrefsFirefox: firefoxPrefs(),
      // No crash reporter: a crashed browser fails the call, and nothing is written beside the profile.
      env: { ...process.env, MOZ_CRASHREPORTER_DISABLE: '1' },
    });
  }
  return puppeteer.launch({ ...common, pipe: true, args: chromiumArgs(profileDir, options.cameraFile) });
}

/** Waits for `promise`, or `ms` at most; the timer is cleared either way (a timer left running would hold the process up). */
async function withinMs(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  try {
    await Promise.race([promise, bound]);
  } finally {
    clearTimeout(timer);
  }
}

export async function launchBrowser(options: BrowserOptions): Promise<BenchBrowser> {
  const kind = options.kind ?? 'chromium';
  const puppeteer = await loadPuppeteer();
  const profileDir = mkdtempSync(join(tmpdir(), ownedTempPrefix('webrtc', options.role)));
  let browser: Browser;
  try {
    browser = await launch(puppeteer, kind, options, profileDir);
  } catch (error) {
    rmSync(profileDir, { recursive: true, force: true });
    throw new Error(`cannot start ${browserName(kind)} (${options.role}): ${(error as Error).message.split('\n')[0]}`);
  }
  const process_ = browser.process();
  const version = await browser.version();
  let closing: Promise<void> | undefined;
  return {
    kind,
    browser,
    role: options.role,
    pid: process_?.pid,
    profileDir,
    version,
    close() {
      closing ??= (async () => {
        const exited = process_ && process_.exitCode === null && process_.signalCode === null ? new Promise<void>((resolve) => process_.once('exit', () => resolve())) : Promise.resolve();
        await withinMs(browser.close().catch(() => {}), 5000);
        if (process_ && process_.exitCode === null && process_.signalCode === null) process_.kill('SIGKILL');
        await withinMs(exited, 5000);
        rmSync(profileDir, { recursive: true, force: true });
      })();
      return closing;
    },
  };
}
