// NADA against its reference implementation: cisco/ns3-rmcat's own
// NadaController (test/reference-impl/ns3-rmcat/, built here with g++) and
// ours read the same feedback log, recorded from our NADA's run of an RFC
// 8867 case in the simulator, and must give the same target after every
// report.
//
// Tolerance: 1e-5 relative. The reference computes in 32-bit floats (about
// 6e-8 relative per operation) and we in doubles; over about a thousand
// multiplicative updates the measured difference stays below 7e-7 in every
// case of the suite, so 1e-5 leaves a margin of more than ten, while any
// difference in the algorithm (a constant, a mode decision, a filter) moves
// a rate by 1e-4 or more within a step (a different mode decision by
// several percent).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { formatFeedbackLog, recordingModule, replayFeedbackLog, type FeedbackLog } from '../../src/cc/feedback-log.ts';
import { createController, nadaController, type NadaController } from '../../src/cc/nada/nada.ts';
import { runRfc8867Case } from '../../src/cc/rfc8867/run-case.ts';
import { buildHarness, cannotBuildHarness, type NativeHarness } from '../reference-impl/native-harness.ts';
import { requires } from '../helpers/requires.ts';

const TOLERANCE = 1e-5;
const SOURCES = ['nada-harness.cc', 'nada-controller.cc', 'sender-based-controller.cc'];
const skipReason = cannotBuildHarness();
// Skipped, and counted with the reason, where the reference harness cannot be built.
const maybe = requires([], { 'reference harness': skipReason });

let harness: NativeHarness | undefined;
const reference = () => (harness ??= buildHarness('ns3-rmcat', SOURCES));
/** The reference's target after each report: [time µs, bit/s]. */
const referenceTargets = (log: FeedbackLog, args: readonly string[] = []) => reference().run(formatFeedbackLog(log), args).map((row) => row.map(Number));
test.after(() => harness?.dispose());

const recorded = new Map<string, Promise<FeedbackLog>>();
/** Our NADA's feedback log (flow 0) in the case, recorded once per test file. */
function recordedLog(caseId: string): Promise<FeedbackLog> {
  if (!recorded.has(caseId)) {
    const logs: FeedbackLog[] = [];
    recorded.set(caseId, runRfc8867Case(caseId, recordingModule(nadaController, logs)).then(() => logs[0]!));
  }
  return recorded.get(caseId)!;
}

/** The largest relative difference between our targets and the reference's, and where. */
function compare(log: FeedbackLog, args: readonly string[] = []) {
  const modes = new Set<string>();
  let warped = 0;
  const ours = replayFeedbackLog(log, { createController }, (c: NadaController) => {
    modes.add(c.snapshot().mode);
    if (c.snapshot().warped) warped++;
  });
  const theirs = referenceTargets(log, args);
  assert.is(theirs.length, ours.length, 'one reference target per report');
  let worst = { relative: 0, step: -1, ours: 0, theirs: 0 };
  ours.forEach((step, i) => {
    const [timeUs, rate] = theirs[i]!;
    assert.is(timeUs, step.timeUs, `report ${i}'s time`);
    const relative = Math.abs(step.bitrate - rate!) / rate!;
    if (relative > worst.relative) worst = { relative, step: i, ours: step.bitrate, theirs: rate! };
  });
  return { worst, modes, warped, steps: ours.length };
}

for (const caseId of ['5.1', '5.8']) {
  maybe(`RFC 8867 ${caseId}'s feedback: our NADA's target within ${TOLERANCE} (relative) of ns3-rmcat's NadaController after every report`, async () => {
    const log = await recordedLog(caseId);
    const { worst, modes, warped, steps } = compare(log);
    // The log must exercise both rate modes and the loss-warped delay, or the comparison proves little.
    assert.ok(modes.has('accelerated-ramp-up') && modes.has('gradual'), `modes seen: ${[...modes].join(', ')}`);
    assert.ok(warped > 0, 'some updates with the delay warped by recent losses');
    assert.ok(steps > 500, `${steps} reports`);
    assert.ok(worst.relative <= TOLERANCE, `report ${worst.step}: ours ${worst.ours}, reference ${worst.theirs} (${worst.relative})`);
  });
}

maybe('the comparison can fail: a NADA with another DFILT (ramp-up) or XREF (gradual) departs from the reference by far more than the tolerance', async () => {
  const log = await recordedLog('5.1');
  for (const parameters of [{ dfiltMs: 100 }, { xrefMs: 11 }]) {
    const ours = replayFeedbackLog(log, { createController: (o) => createController(o, parameters) });
    const theirs = referenceTargets(log);
    const worst = Math.max(...ours.map((s, i) => Math.abs(s.bitrate - theirs[i]![1]!) / theirs[i]![1]!));
    assert.ok(worst > 100 * TOLERANCE, `${JSON.stringify(parameters)}: ${worst}`);
  }
});

test.run();
