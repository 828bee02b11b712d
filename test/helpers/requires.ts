// What a test needs from the machine beyond Node and the npm packages: system
// tools (ffmpeg, vpx-tools, Slurm, Chromium, Firefox, coturn, iperf3) and conditions
// (root, network namespaces). A test file declares them once:
//
//   const test = requires(['ffmpeg', 'vpxdec']);
//   test('...', async () => { ... });
//
// When everything is there, `test` is uvu's own. When something is missing,
// every test registered through it is SKIPPED (uvu counts it) and its hooks
// are not run, and each skip is recorded: printed, and appended as one JSON
// line to the file named by $LOWLAT_TEST_SKIPS, from which
// scripts/run-tests.mjs prints one closing line per missing package with the
// apt command that installs it. A tool is looked for on $PATH, so a test run
// with a PATH that hides a tool shows what a machine without it does.
import { accessSync, appendFileSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { test as uvuTest } from 'uvu';
import { CHROMIUM_PATH, FIREFOX_PATH, TURNSERVER_PATH } from '../../src/webrtc/prerequisites.ts';

type Test = typeof uvuTest;

interface Tool {
  /** The Debian package that installs it. */
  readonly package: string;
  readonly found: () => boolean;
}

function executable(path: string): boolean {
  try {
    return statSync(path).isFile() && (accessSync(path, constants.X_OK), true);
  } catch {
    return false;
  }
}

/** Whether `name` is an executable file in a directory of $PATH. */
export function onPath(name: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => dir !== '' && executable(join(dir, name)));
}

const onPathTool = (pkg: string, ...names: string[]): Tool => ({ package: pkg, found: () => names.every(onPath) });

const TOOLS = {
  ffmpeg: onPathTool('ffmpeg', 'ffmpeg'),
  ffprobe: onPathTool('ffmpeg', 'ffprobe'),
  vpxdec: onPathTool('vpx-tools', 'vpxdec'),
  vpxenc: onPathTool('vpx-tools', 'vpxenc'),
  munge: onPathTool('munge', 'munged'),
  slurm: onPathTool('slurm-wlm', 'slurmctld', 'slurmd', 'sbatch', 'squeue', 'sinfo'),
  iperf3: onPathTool('iperf3', 'iperf3'),
  iptables: onPathTool('iptables', 'iptables'),
  // The WebRTC bench runs these by absolute path (src/webrtc/prerequisites.ts); the same variables override them.
  chromium: { package: 'chromium', found: () => executable(process.env.SALSIFY_CHROMIUM || CHROMIUM_PATH) },
  firefox: { package: 'firefox-esr', found: () => executable(process.env.SALSIFY_FIREFOX || FIREFOX_PATH) },
  coturn: { package: 'coturn', found: () => executable(process.env.SALSIFY_TURNSERVER || TURNSERVER_PATH) },
} satisfies Record<string, Tool>;

export type ToolName = keyof typeof TOOLS;

/** One reason a test is skipped, as the runner aggregates it. */
export interface SkipRecord {
  readonly test: string;
  /** `ffmpeg missing`, or a condition's own words. */
  readonly reason: string;
  /** The command that installs what is missing, if a package does. */
  readonly install?: string;
}

/** The reasons these needs are not met here (empty when they all are). */
export function unmet(tools: readonly ToolName[], conditions: Readonly<Record<string, string | undefined>> = {}): Omit<SkipRecord, 'test'>[] {
  const packages = [...new Set(tools.filter((t) => !TOOLS[t].found()).map((t) => TOOLS[t].package))];
  return [
    ...packages.map((p) => ({ reason: `${p} missing`, install: `apt-get install -y ${p}` })),
    ...Object.values(conditions).filter((c): c is string => c !== undefined).map((reason) => ({ reason })),
  ];
}

function record(name: string, reasons: readonly Omit<SkipRecord, 'test'>[]): void {
  const text = reasons.map((r) => (r.install ? `${r.reason} (${r.install})` : r.reason)).join('; ');
  process.stdout.write(`\n  skipped: ${name}: ${text}\n`);
  const log = process.env.LOWLAT_TEST_SKIPS;
  if (log) appendFileSync(log, reasons.map((r) => `${JSON.stringify({ test: name, ...r })}\n`).join(''));
}

/**
 * uvu's `test` when every tool is on this machine and every condition is met
 * (a condition is undefined when met, else the reason it is not); otherwise
 * a `test` whose tests are skipped and recorded and whose `before` hooks do
 * nothing. Its `after` hooks still run, as clean-up of what the file made when
 * it was loaded (a temporary directory); since no `before` hook ran, what an
 * `after` hook throws (a directory that a `before` hook would have made) is
 * ignored.
 */
export function requires(tools: readonly ToolName[], conditions: Readonly<Record<string, string | undefined>> = {}): Test {
  const reasons = unmet(tools, conditions);
  if (reasons.length === 0) return uvuTest;
  const skipping = (name: string) => {
    record(name, reasons);
    uvuTest.skip(name);
  };
  const noHook = Object.assign(() => {}, { each: () => {} });
  const cleanUp = Object.assign(
    (hook: () => unknown) => uvuTest.after(async () => {
      try {
        await hook();
      } catch {
        // what a before hook would have set up is not there
      }
    }),
    { each: () => {} },
  );
  return Object.assign(skipping, { before: noHook, after: cleanUp, only: skipping, skip: uvuTest.skip, run: uvuTest.run }) as unknown as Test;
}
