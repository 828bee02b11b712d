// Runs one run of the list in this process: opens its video (wrapped so that
// each frame the sender takes reports how far the run is, in seconds of
// video), simulates it (runSalsifySim), and turns the result into the text
// the store keeps. Deterministic: the same run gives the same bytes.
import { reportingSource, type ProgressListener } from '../salsify/reporting-source.ts';
import { openTrace } from '../link-emu/trace-files.ts';
import { jsonText, runToJson } from '../results/json.ts';
import { lateFrames } from '../results/late-frames.ts';
import { openVideo } from '../salsify/open-inputs.ts';
import { runSalsifySim } from '../salsify/sim-runner.ts';
import { DEFAULT_MTU } from '../link-emu/link.ts';
import type { EvalRun } from './run-list.ts';
import { runSeries } from './series.ts';
import type { StoredRun } from './store.ts';

/** Reports progress in seconds of video captured so far. */
export type { ProgressListener } from '../salsify/reporting-source.ts';

/** The stored text of `run`, simulated here. */
export async function executeRun(run: EvalRun, onProgress: ProgressListener = () => {}): Promise<string> {
  const { config } = run;
  const source = await openVideo(config.video, config.seed, { fps: config.fps ?? undefined });
  let text: string;
  try {
    const result = await runSalsifySim(config, { source: reportingSource(source, onProgress) });
    const downlink = config.downlink;
    const series = runSeries(result.frames, result.endMs, {
      trace: typeof downlink === 'string' ? openTrace(downlink) : null,
      constantMbps: typeof downlink === 'string' ? undefined : downlink.constantMbps,
      mtu: config.mtu ?? DEFAULT_MTU,
      offMs: result.downlinkOffMs,
    });
    const linkOffMs = result.downlinkOffMs.length ? { linkOffMs: result.downlinkOffMs } : {};
    const stored: StoredRun = { hash: run.hash, id: run.id, key: run.key, result: runToJson(result, result.summary) as StoredRun['result'], series, lateFrames: lateFrames(result.frames, result.window), ...linkOffMs };
    text = jsonText(stored);
  } finally {
    await source.close();
  }
  return text;
}
