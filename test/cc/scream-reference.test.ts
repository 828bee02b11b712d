// SCReAM against its reference implementation: EricssonResearch/scream's
// own ScreamTx (test/reference-impl/scream/, the version of RFC 8298's
// publication, built here with g++) and ours replay the same call log,
// recorded from our SCReAM's run of an RFC 8867 case in the simulator, and
// must agree after every call (tens of thousands per case).
//
// Tolerances, and why:
// - target bitrate: 1e-5 relative. The reference computes in 32-bit floats
//   (6e-8 relative per operation), we in doubles; measured at most 5e-7 on
//   every case of the suite, while a difference in the algorithm moves the
//   target by a ramp-up step (10 % or more) or a loss step (10 %).
// - congestion window: 2 bytes. We round to whole bytes where the reference
//   truncates a float (its float arithmetic emulated there); its float rate
//   estimates still leave an occasional 1 byte (measured).
// - bytes in flight: exact; isOkToTransmit's answer (send, wait, blocked):
//   the same at every call; its wait and addTransmitted's pacing interval:
//   2 µs (both truncate the pacing interval to whole µs, the reference from
//   a float: 1 µs apart at most, measured).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runRfc8867Case } from '../../src/cc/rfc8867/run-case.ts';
import { recordingScream, replayScreamLog, type ScreamLogRecorder, type ScreamStep } from '../../src/cc/scream/scream-log.ts';
import { buildHarness, cannotBuildHarness, type NativeHarness } from '../reference-impl/native-harness.ts';
import { requires } from '../helpers/requires.ts';

const TARGET_TOLERANCE = 1e-5;
const CWND_TOLERANCE_BYTES = 2;
const WAIT_TOLERANCE_S = 2e-6;
const skipReason = cannotBuildHarness();
// Skipped, and counted with the reason, where the reference harness cannot be built.
const maybe = requires([], { 'reference harness': skipReason });

let harness: NativeHarness | undefined;
const reference = () => (harness ??= buildHarness('scream', ['scream-harness.cc', 'ScreamTx.cpp']));
test.after(() => harness?.dispose());

const logs = new Map<string, Promise<string>>();
/** Our SCReAM's call log (flow 0) in the case, recorded once per test file. */
function recordedLog(caseId: string): Promise<string> {
  if (!logs.has(caseId)) {
    const recorders: ScreamLogRecorder[] = [];
    logs.set(caseId, runRfc8867Case(caseId, recordingScream(recorders)).then(() => recorders[0]!.text()));
  }
  return logs.get(caseId)!;
}

/** The first call after which ours and the reference's differ beyond the tolerances, described; undefined if none. */
function firstDifference(ours: readonly ScreamStep[], theirs: readonly string[][]): string | undefined {
  if (ours.length !== theirs.length) return `${ours.length} calls replayed by ours, ${theirs.length} by the reference`;
  for (let i = 0; i < ours.length; i++) {
    const o = ours[i]!;
    const [kind, ...fields] = theirs[i]!;
    const [nowUs, result, target, , cwnd, inFlight] = fields.map(Number);
    const differs =
      kind !== o.kind ||
      nowUs !== o.nowUs ||
      Math.abs(o.targetBitrate - target!) > TARGET_TOLERANCE * target! ||
      Math.abs(o.cwnd - cwnd!) > CWND_TOLERANCE_BYTES ||
      o.bytesInFlight !== inFlight ||
      o.result < 0 !== result! < 0 ||
      Math.abs(o.result - result!) > WAIT_TOLERANCE_S;
    if (differs) return `call ${i} (${o.kind} at ${o.nowUs} us): ours ${JSON.stringify(o)}, reference ${theirs[i]!.join(' ')}`;
  }
  return undefined;
}


for (const caseId of ['5.1', '5.7']) {
  maybe(`RFC 8867 ${caseId}'s calls: our ScreamTx and the reference's agree after every call (target 1e-5, cwnd 2 bytes, waits 2 µs, decisions exact)`, async () => {
    const log = await recordedLog(caseId);
    const ours = replayScreamLog(log, `${caseId}.log`);
    assert.is(firstDifference(ours, reference().run(log)), undefined);
    // The log must exercise the window (full and open), fast start's end, and (5.7) losses.
    assert.ok(ours.some((s) => s.kind === 'K' && s.result < 0) && ours.some((s) => s.kind === 'T'), 'window full and open');
    assert.ok(ours.some((s) => !s.inFastStart), 'fast start left');
    if (caseId === '5.7') assert.ok(ours.at(-1)!.lossEvents > 0, 'loss events');
  });
}

maybe('the comparison can fail: a ScreamTx with another loss beta (5.7), ramp-up speed, down gain or delay target (5.1) departs from the reference', async () => {
  const cases = [
    ['5.7', [{ lossBeta: 0.7 }]],
    ['5.1', [{ rampUpSpeed: 250_000 }, { gainDown: 1.5 }, { queueDelayTargetMin: 0.11 }]],
  ] as const;
  for (const [caseId, edits] of cases) {
    const log = await recordedLog(caseId);
    const theirs = reference().run(log);
    assert.is(firstDifference(replayScreamLog(log, `${caseId}.log`), theirs), undefined, 'unedited');
    for (const parameters of edits) assert.ok(firstDifference(replayScreamLog(log, `${caseId}.log`, parameters), theirs) !== undefined, JSON.stringify(parameters));
  }
});

test.run();
