// What each part of libwebrtc's goog_cc changes, case by case: GCC as
// draft-ietf-rmcat-gcc-02 (gcc-draft02), then with libwebrtc's over-use
// gains, then also its acknowledged-bitrate estimator, then also its AIMD and
// classic loss rules and 100 ms burst cap, then with start-up probing and
// the ALR detector (gcc-classic-loss), then the whole (gcc: LossBasedBweV2,
// goog_cc's default loss-based estimator, instead of the classic rule). Per case and variant: the media's mean rate, utilisation, the
// worst p95 queueing delay, the worst loss, and the time from the start until
// the target first reaches 80 % of the first capacity (start-up).
// Usage: nice -n 10 node --import tsx bench/gcc-parts.ts [CASES]   (CASES: case ids joined by commas; default all)
import { CASE_IDS, rfc8867Case } from '../src/cc/rfc8867/cases.ts';
import { runResolved, type CaseResult } from '../src/cc/rfc8867/run-case.ts';
import { mediaFlow } from '../src/cc/media-flow.ts';
import { createController, GCC_DRAFT02, GCC_LIBWEBRTC, GCC_LIBWEBRTC_CLASSIC_LOSS, type GccParameters } from '../src/cc/gcc/gcc.ts';

const GAINS: Partial<GccParameters> = { ...GCC_DRAFT02, detector: GCC_LIBWEBRTC.detector };
const ACKED: Partial<GccParameters> = { ...GAINS, throughput: 'acknowledged' };
const RULES: Partial<GccParameters> = { ...GCC_LIBWEBRTC_CLASSIC_LOSS, probing: false, alr: false };
const VARIANTS: ReadonlyArray<readonly [string, Partial<GccParameters>]> = [
  ['gcc-draft02', GCC_DRAFT02],
  ['+gains', GAINS],
  ['+acked', ACKED],
  ['+aimd/loss', RULES],
  ['gcc-classic-loss (+probing/ALR)', GCC_LIBWEBRTC_CLASSIC_LOSS],
  ['gcc (+LossBasedBweV2)', GCC_LIBWEBRTC],
];

const cases = process.argv[2]?.split(',') ?? CASE_IDS;

/** ms from the start until the first media flow's target first reaches 80 % of the case's first capacity (null: never). */
function startupMs(r: CaseResult): number | null {
  const first = r.metrics.flows.find((f) => f.targetKbps.some((t) => t !== null));
  const capacity = r.links[first?.direction ?? 'forward'].schedule?.[0]?.rateMbps;
  if (first === undefined || capacity === undefined) return null;
  const share = capacity * 1000 * 0.8 / r.metrics.flows.filter((f) => f.direction === first.direction && f.startMs === first.startMs && f.targetKbps.some((t) => t !== null)).length;
  const bin = first.targetKbps.findIndex((t) => t !== null && t >= share);
  return bin < 0 ? null : (bin + 1) * 1000 - first.startMs;
}

const rows: string[][] = [['case', 'variant', 'rate kbit/s', 'util', 'p95 ms', 'max ms', 'loss %', 'start-up s', 'pass']];
for (const id of cases) {
  const c = rfc8867Case(id);
  for (const [label, parameters] of VARIANTS) {
    const factory = mediaFlow({ name: label, createController: (o) => createController(o, parameters, label) });
    const r = await runResolved(c, factory, { seed: 1 });
    const media = r.metrics.flows.filter((f) => f.controller === label);
    const util = r.checks.find((x) => x.check === 'utilisation' || x.check === 'mediaShare')?.value;
    const startup = startupMs(r);
    rows.push([
      id, label,
      media.map((f) => Math.round(f.meanRateKbps)).join(' / '),
      util === undefined || util === null ? '-' : util.toFixed(2),
      String(Math.max(...media.map((f) => f.queueingDelayMs.p95 ?? 0))),
      String(Math.max(...media.map((f) => f.queueingDelayMs.max ?? 0))),
      (100 * Math.max(...media.map((f) => f.lossRate))).toFixed(2),
      startup === null ? 'never' : (startup / 1000).toFixed(0),
      r.pass ? 'pass' : `FAIL (${r.checks.filter((x) => !x.pass).map((x) => x.check).join(', ')})`,
    ]);
  }
}
const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
const line = (r: string[]) => `| ${r.map((x, i) => x.padEnd(widths[i]!)).join(' | ')} |`;
console.log(line(rows[0]!));
console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
for (const r of rows.slice(1)) console.log(line(r));
