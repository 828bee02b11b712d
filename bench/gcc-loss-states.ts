// How often gcc's loss-based part, LossBasedBweV2, limits, per RFC 8867 case:
// the share of feedback reports (all of a case's gcc flows) in each of its
// states (`undefined`: before its result is used, while the start phase or the
// classic rule leads), and the share on which the loss-based estimate was
// below the delay-based one. Seed 1, as `ccbench rfc8867`.
// Usage: nice -n 10 node --import tsx bench/gcc-loss-states.ts [CASES]   (CASES: case ids joined by commas; default all)
import { CASE_IDS } from '../src/cc/rfc8867/cases.ts';
import { runRfc8867Case } from '../src/cc/index.ts';
import { createController, GCC_LIBWEBRTC } from '../src/cc/gcc/gcc.ts';
import type { RateControllerModule } from '../src/cc/controller.ts';

const cases = process.argv[2]?.split(',') ?? CASE_IDS;
for (const id of cases) {
  const counts = new Map<string, number>();
  let below = 0;
  let reports = 0;
  const module: RateControllerModule = {
    name: 'gcc',
    createController(options) {
      const c = createController(options, GCC_LIBWEBRTC, 'gcc');
      const onFeedback = c.onFeedback.bind(c);
      c.onFeedback = (report, nowMs) => {
        onFeedback(report, nowMs);
        const s = c.snapshot();
        counts.set(String(s.lossState), (counts.get(String(s.lossState)) ?? 0) + 1);
        reports++;
        if (s.lossBased < s.delayBased) below++;
      };
      return c;
    },
  };
  await runRfc8867Case(id, module);
  const shares = [...counts].map(([state, n]) => `${state} ${((100 * n) / reports).toFixed(1)} %`).join(', ');
  console.log(`${id}: ${shares}; loss-based below delay-based on ${((100 * below) / reports).toFixed(1)} % of ${reports} reports`);
}
