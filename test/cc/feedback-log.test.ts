// The feedback log: recorded from a controller's run, written, read back and
// replayed, it gives the same targets as the run; a malformed line is named.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { aimdController } from '../../src/cc/aimd.ts';
import { formatFeedbackLog, parseFeedbackLog, recordingModule, replayFeedbackLog, type FeedbackLog } from '../../src/cc/feedback-log.ts';

const options = { initialBitrate: 1_000_000, minBitrate: 100_000, maxBitrate: 3_000_000 };

/** Drives a recorded AIMD for 2 s of 10-packet rounds, queueing growing and one loss a round after 1 s; its targets after each report. */
function drive(logs: FeedbackLog[]): number[] {
  const c = recordingModule(aimdController, logs).createController(options);
  const targets: number[] = [];
  let seq = 0;
  for (let t = 0; t < 2000; t += 100) {
    const packets = [];
    for (let i = 0; i < 10; i++, seq++) {
      c.onPacketSent({ sequence: seq, sizeBytes: 1200, sendTimeMs: t + i * 0.5 });
      packets.push({ sequence: seq, arrivalTimeMs: t >= 1000 && i === 0 ? undefined : t + i * 0.5 + 40.25 + t / 20 });
    }
    c.onFeedback({ packets }, t + 100);
    targets.push(c.targetBitrate());
  }
  return targets;
}

test('recorded, written, parsed and replayed: the same targets as the run', () => {
  const logs: FeedbackLog[] = [];
  const targets = drive(logs);
  assert.is(logs.length, 1);
  const text = formatFeedbackLog(logs[0]!);
  assert.match(text, /^O 1000000 100000 3000000\nS 0 0 1200\nS 500 1 1200\n/);
  assert.match(text, /\nF 1100000 10 100 -1 101 1090750 /);
  const replayed = replayFeedbackLog(parseFeedbackLog(text, 'log.txt'), aimdController);
  assert.equal(replayed.map((s) => s.bitrate), targets);
  assert.equal(replayed.map((s) => s.timeUs), targets.map((_, i) => (i + 1) * 100_000));
  assert.ok(targets.some((r, i) => i > 0 && r < targets[i - 1]!), 'the run decreased at least once');
});

test('a malformed line throws naming the file, line and text', () => {
  for (const [text, line] of [['O 1 2 3\nS 0 0\n', 2], ['O 1 2 3\nF 5 2 0 1\n', 2], ['S 0 0 1200\n', 1], ['O 1 2 3\nS 0 x 1200\n', 2], ['O 1 2 3\nX 1\n', 2]] as const) {
    assert.throws(() => parseFeedbackLog(text, 'f.log'), (e: Error) => e.message.startsWith(`f.log:${line}: not a feedback log line: `), JSON.stringify(text));
  }
  assert.throws(() => parseFeedbackLog('# nothing\n', 'f.log'), /f\.log: no options line/);
});

test.run();
