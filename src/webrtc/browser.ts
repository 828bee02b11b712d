// One headless Chromium for the bench, driven by puppeteer-core over a pipe
// (no debugging port is opened). Every flag is ours (puppeteer's defaults are
// off), so the list below is the whole command line: headless without GPU,
// no background networking, component updates, sync or first-run work that
// would compete for the CPU, no throttling of a page in the background, a fake
// camera playing the bench's clip, and loopback allowed as a peer connection
// address (a machine with only a loopback interface has nothing else). Each
// browser gets a fresh profile directory, removed when it closes.
import { mkdtempSync, rmSync } from 'node:fs';
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

export interface BrowserOptions {
  readonly executable: string;
  /** The Y4M file the fake camera plays (looped). */
  readonly cameraFile: string;
  /** Names the browser in messages ("sender", "receiver"). */
  readonly role: string;
  /** Milliseconds to wait for the browser to start (default 60 s: the machine may be loaded). */
  readonly timeoutMs?: number;
}

export interface BenchBrowser {
  readonly browser: Browser;
  readonly role: string;
  readonly pid: number | undefined;
  readonly profileDir: string;
  /** Chromium's version string, e.g. "Chrome/156.0.8078.114" as the browser reports it. */
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

export async function launchBrowser(options: BrowserOptions): Promise<BenchBrowser> {
  const puppeteer = await loadPuppeteer();
  const profileDir = mkdtempSync(join(tmpdir(), ownedTempPrefix('webrtc', options.role)));
  let browser: Browser;
  try {
    browser = await puppeteer.launch({
      executablePath: options.executable,
      pipe: true,
      headless: true,
      ignoreDefaultArgs: true,
      args: chromiumArgs(profileDir, options.cameraFile),
      // The bench ends its browsers itself, on its own signals.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
      timeout: options.timeoutMs ?? 60_000,
      protocolTimeout: 120_000,
    });
  } catch (error) {
    rmSync(profileDir, { recursive: true, force: true });
    throw new Error(`cannot start Chromium (${options.role}): ${(error as Error).message.split('\n')[0]}`);
  }
  const process_ = browser.process();
  const version = await browser.version();
  let closing: Promise<void> | undefined;
  return {
    browser,
    role: options.role,
    pid: process_?.pid,
    profileDir,
    version,
    close() {
      closing ??= (async () => {
        const exited = process_ && process_.exitCode === null && process_.signalCode === null ? new Promise<void>((resolve) => process_.once('exit', () => resolve())) : Promise.resolve();
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<void>((resolve) => {
          timer = setTimeout(resolve, 5000);
        });
        await Promise.race([browser.close().catch(() => {}), timeout]);
        if (process_ && process_.exitCode === null && process_.signalCode === null) process_.kill('SIGKILL');
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
        clearTimeout(timer);
        rmSync(profileDir, { recursive: true, force: true });
      })();
      return closing;
    },
  };
}
