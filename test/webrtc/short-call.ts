// One short browser call (Chromium unless told) over a constant-rate link (drop-tail 256 both
// ways, synthetic 640x360 at 30 fps), bounded in time: the set-up the call
// tests share.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import * as assert from 'uvu/assert';
import { processesMentioning } from '../helpers/processes.ts';
import { join } from 'node:path';
import { formatTrace } from '../../src/link-emu/trace-format.ts';
import { constantRateTrace } from '../../src/link-emu/trace-generators.ts';
import { runWebrtcBench, type WebrtcResult } from '../../src/webrtc/bench.ts';
import { findPrerequisites } from '../../src/webrtc/prerequisites.ts';
import type { BrowserKind } from '../../src/webrtc/browser.ts';

export interface ShortCall {
  readonly browser?: BrowserKind;
  readonly rateMbps: number;
  readonly codec: 'vp8' | 'vp9' | 'av1';
  readonly scalabilityMode?: string;
  readonly durationS: number;
  /** The call is aborted after this long. */
  readonly limitMs: number;
}

/** Runs the call with its files in `dir` (trace, out/). */
export async function runShortCall(dir: string, call: ShortCall): Promise<WebrtcResult> {
  const trace = join(dir, `${call.rateMbps}mbps.trace`);
  writeFileSync(trace, formatTrace(constantRateTrace({ rateMbps: call.rateMbps })));
  const out = join(dir, 'out');
  mkdirSync(out);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`the call took more than ${call.limitMs / 1000} s`)), call.limitMs);
  try {
    return await runWebrtcBench({
      programs: findPrerequisites({}, { browser: call.browser ?? 'chromium' }),
      video: 'synthetic',
      width: 640,
      height: 360,
      fps: 30,
      codec: call.codec,
      ...(call.scalabilityMode === undefined ? {} : { scalabilityMode: call.scalabilityMode }),
      durationS: call.durationS,
      videoTrace: trace,
      feedbackTrace: trace,
      linkshellArgs: ['--uplink-queue', 'droptail', '--uplink-queue-args', 'packets=256', '--downlink-queue', 'droptail', '--downlink-queue-args', 'packets=256'],
      out,
      verifyFrames: 45,
      signal: controller.signal,
    });
  } finally {
    clearTimeout(timer);
  }
}

/** Whether a process with this pid runs. */
export function alive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A finished call left nothing: its four processes ended, its temporary directory and browser profiles gone. */
export function assertNothingLeftBehind(result: Pick<WebrtcResult, 'processes' | 'tempDir'>): void {
  assert.is(result.processes.length, 4, JSON.stringify(result.processes));
  for (const p of result.processes) assert.not.ok(alive(p.pid), `${p.name} (pid ${p.pid}) still runs`);
  assert.not.ok(existsSync(result.tempDir), `${result.tempDir} is left`);
  for (const p of result.processes) {
    const profile = /profile (\S+)\)/.exec(p.name)?.[1];
    if (profile === undefined) continue;
    assert.not.ok(existsSync(profile), `${profile} is left`);
    assert.equal(processesMentioning(profile), [], `processes of ${profile} still run`);
  }
}

