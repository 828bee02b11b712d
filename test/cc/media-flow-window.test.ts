// The media flow under a window-based controller: what the source produces
// waits in the send queue, and a packet leaves only when the controller
// says so; the controller may discard the queue; pausing empties it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { FeedbackReport, RateControllerModule, RateControllerOptions, SendQueue, WindowedRateController } from '../../src/cc/controller.ts';
import { runMediaFlow, scheduleTrace } from './media-flow-harness.ts';

interface WindowProbe {
  maxInFlight: number;
  maxQueued: number;
  produced: number;
  discards: number;
}

/** A fixed window of `windowBytes` in flight (sent minus reported), at 1 Mbit/s; discards the queue when its head waited more than `discardAfterMs`. */
function fixedWindow(windowBytes: number, probe: WindowProbe, discardAfterMs = Infinity): RateControllerModule {
  return {
    name: 'fixed-window',
    createController(_options: RateControllerOptions): WindowedRateController {
      const inFlight = new Map<number, number>();
      let bytesInFlight = 0;
      return {
        name: 'fixed-window',
        targetBitrate: () => 1_000_000,
        onPacketSent(p) {
          inFlight.set(p.sequence, p.sizeBytes);
          bytesInFlight += p.sizeBytes;
          probe.maxInFlight = Math.max(probe.maxInFlight, bytesInFlight);
        },
        onFeedback(report: FeedbackReport) {
          for (const p of report.packets) {
            bytesInFlight -= inFlight.get(p.sequence) ?? 0;
            inFlight.delete(p.sequence);
          }
        },
        onMediaProduced(bytes: number, nowMs: number, queue: SendQueue) {
          probe.produced += bytes;
          probe.maxQueued = Math.max(probe.maxQueued, queue.bytes());
          if (queue.headWaitMs(nowMs) > discardAfterMs) {
            queue.clear();
            probe.discards++;
          }
        },
        transmitDelayMs(_nowMs: number, queue: SendQueue) {
          const next = queue.headSizeBytes();
          return next !== undefined && bytesInFlight + next <= windowBytes ? 0 : undefined;
        },
      };
    },
  };
}

const probe = (): WindowProbe => ({ maxInFlight: 0, maxQueued: 0, produced: 0, discards: 0 });
// 2 Mbit/s, 50 ms each way: a 6000-byte window (five packets) per 200 ms feedback round holds the flow well below 1 Mbit/s.
const trace = scheduleTrace([[0, 2_000_000]], 5000);

test('a window of five packets: never more in flight, the rest waits in the queue', async () => {
  const p = probe();
  const run = await runMediaFlow(fixedWindow(6000, p), { trace, durationMs: 5000, flow: { feedbackIntervalMs: 100 } });
  assert.ok(p.maxInFlight <= 6000 && p.maxInFlight > 0, `max in flight ${p.maxInFlight}`);
  assert.ok(p.maxQueued > 50_000, `the queue grew to ${p.maxQueued} bytes`);
  assert.ok(run.stats.bytesSent < p.produced / 2, `sent ${run.stats.bytesSent} of ${p.produced} produced`);
  assert.ok(run.receivedBitrate(1000, 5000) < 400_000, `${run.receivedBitrate(1000, 5000)} bit/s`);
});

test('a window as large as the path: the flow sends what it produces', async () => {
  const p = probe();
  const run = await runMediaFlow(fixedWindow(1_000_000, p), { trace, durationMs: 5000 });
  assert.ok(run.stats.bytesSent >= p.produced - 1200, `sent ${run.stats.bytesSent} of ${p.produced}`);
  assert.ok(Math.abs(run.receivedBitrate(1000, 5000) - 1_000_000) < 50_000, `${run.receivedBitrate(1000, 5000)} bit/s`);
});

test('the controller may discard the queue; pause empties it', async () => {
  const p = probe();
  const run = await runMediaFlow(fixedWindow(6000, p, 100), { trace, durationMs: 5000, pauseAt: [2000, 3000] });
  assert.ok(p.discards > 3, `${p.discards} discards`);
  assert.ok(p.maxQueued < 20_000, `queue at most ${p.maxQueued} bytes`);
  assert.ok(run.packets.every((x) => x.sendTimeMs < 2000 || x.sendTimeMs >= 3000), 'nothing sent while paused');
});

test.run();
