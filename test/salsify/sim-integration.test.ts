// The sender and receiver in the deterministic simulator, with the model codec
// and the synthetic scene at 640x360 (fast), on emulated links.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_SIM_CONFIG, runSalsifySim, type SalsifySimResult } from '../../src/salsify/sim-runner.ts';
import type { SenderEvent } from '../../src/salsify/sender.ts';
import { candidateQuantizers } from '../../src/salsify/quantizer.ts';
import { createScheme } from '../../src/salsify/schemes/registry.ts';
import { modelledEncodeMs } from '../../src/salsify/timing-model.ts';
import { framesToCsv } from '../../src/results/csv.ts';
import { readFramesCsv } from '../../src/results/read-csv.ts';
import { summarize } from '../../src/results/summary.ts';
import { checkRun } from '../../src/results/validate.ts';
import { rejects } from '../helpers/rejects.ts';

const VIDEO = 'synthetic:640x360';

/** One letter per source frame: K/. shown (key frame or not), x lost, n never shown, s skipped, - superseded. */
function fates(r: SalsifySimResult): string {
  const letter = { lost: 'x', 'never-shown': 'n', skipped: 's', superseded: '-' } as const;
  return r.frames.map((f) => (f.fate === 'shown' ? (f.keyFrame ? 'K' : '.') : letter[f.fate])).join('');
}

test('steady 2 Mbit/s link: most of the capacity used, p95 signal delay under 200 ms, nothing lost', async () => {
  const r = await runSalsifySim({ scheme: 'salsify-1', downlink: { constantMbps: 2 }, uplink: { constantMbps: 2 }, durationS: 10, video: VIDEO, delayMs: 10 });
  const s = r.summary;
  assert.ok(s.linkUtilization > 0.8, `utilisation ${s.linkUtilization}`);
  assert.ok(s.signalDelayMs.p95 < 200, `p95 delay ${s.signalDelayMs.p95}`);
  assert.ok(s.signalDelayMs.mean < 150, `mean delay ${s.signalDelayMs.mean}`);
  assert.is(s.framesCaptured, 600);
  assert.is(s.framesShown, s.framesSent);
  // Nothing sent goes undisplayed; only frames the sender skips at the very end, with no later frame to catch them up, may.
  const undisplayed = r.frames.filter((f) => f.displayMs === undefined);
  assert.is(s.framesNotCaughtUp, undisplayed.length);
  assert.ok(undisplayed.every((f) => f.fate === 'skipped' && f.sourceIndex >= 595), JSON.stringify(undisplayed.map((f) => f.sourceIndex)));
  assert.is(s.framesLost + s.framesNeverShown, 0);
  assert.is(r.counters.downlink.drops.queue, 0);
  assert.is(r.counters.sender.keyFrames, 1);
  // the sender keeps only the states from the receiver's on: about the frames in flight
  assert.ok(r.counters.sender.maxStatesKept <= 20, `kept ${r.counters.sender.maxStatesKept} states`);
  assert.ok(s.ssimDb.mean > 10 && s.ssimDb.mean < 30, `SSIM ${s.ssimDb.mean} dB`);
  assert.ok(s.ssimDb.p5 <= s.ssimDb.mean && s.ssimDb.mean <= s.ssimDb.p95);
  assert.ok(s.bytesSent > 0.8 * (2e6 / 8) * 10 * (1472 / 1504) * 0.8);
  // The per-frame CSV reads back into valid records with the same counts and, to its 6 decimals, the same delays.
  const back = summarize(checkRun({ ...r, frames: readFramesCsv(framesToCsv(r.frames), 'frames.csv') }));
  assert.equal({ ...back, signalDelayMs: undefined, ssimDb: undefined }, { ...s, signalDelayMs: undefined, ssimDb: undefined });
  assert.ok(Math.abs(back.signalDelayMs.mean - s.signalDelayMs.mean) < 1e-6 && Math.abs(back.ssimDb.mean - s.ssimDb.mean) < 1e-3);
});

test('encode time in the delay: salsify-1 pays for both encodings in turn, salsify-2 for the slower one', async () => {
  const base = { downlink: { constantMbps: 2 }, uplink: { constantMbps: 2 }, durationS: 2, video: VIDEO, delayMs: 10 } as const;
  for (const scheme of ['salsify-1', 'salsify-2'] as const) {
    const r = await runSalsifySim({ ...base, scheme });
    let last = 64; // the sender's initial quantizer
    let checked = 0;
    for (const e of r.senderEvents) {
      if (e.kind !== 'sent') continue;
      const { better, worse } = candidateQuantizers(last);
      const tb = modelledEncodeMs(640, 360, better, e.keyFrame);
      const tw = modelledEncodeMs(640, 360, worse, e.keyFrame);
      assert.ok(Math.abs(e.encodeMs - (scheme === 'salsify-1' ? tb + tw : Math.max(tb, tw))) < 1e-9, `${scheme} frame ${e.frameNumber}`);
      // the frame leaves no earlier than its capture plus its encoding
      const capture = (r.senderEvents.find((c) => c.kind === 'capture' && c.sourceIndex === e.sourceIndex) as { time: number }).time;
      assert.ok(e.time >= capture + e.encodeMs - 1e-9);
      last = e.quantizer;
      checked++;
    }
    assert.ok(checked > 50);
  }
});

test('on/off link: skips while the link is out, recovers within a few frames of its return', async () => {
  const r = await runSalsifySim({
    scheme: 'salsify-1', downlink: { constantMbps: 12 }, uplink: { constantMbps: 12 }, durationS: 8, video: 'synthetic:1280x720',
    delayMs: 10, downlinkOnOff: { meanOnMs: 2000, meanOffMs: 300 }, seed: 3,
  });
  const line = fates(r);
  assert.ok(r.counters.downlink.drops.onoff > 0, 'the link never went off');
  assert.ok(/s{3}/.test(line), `no run of skips during an outage: ${line}`);
  // After every stretch of lost or skipped frames, frames are shown again within a few frames...
  const stalls = [...line.matchAll(/[xns-]+/g)];
  assert.ok(stalls.length >= 2);
  for (const m of stalls) {
    const end = m.index! + m[0].length;
    if (end < line.length) assert.ok(line[end] === '.' || line[end] === 'K', line);
  }
  // ...and without a key frame: recovery used a state the receiver held.
  const recoveries = r.senderEvents.filter((e): e is Extract<SenderEvent, { kind: 'recovery' }> => e.kind === 'recovery');
  assert.ok(recoveries.length >= 1);
  assert.ok(recoveries.every((e) => !e.keyFrame));
  // Once the link is back the picture catches up: in the last second nothing is lost, at most a skip by choice.
  assert.ok(/^\.+s?\.+$/.test(line.slice(-60)), line.slice(-60));
  assert.is(r.summary.framesNotCaughtUp, 0);
});

test('a single lost datagram: the frame is shown concealed, the frames after it decoded from the damaged state, until the sender recovers without a key frame', async () => {
  const base = { scheme: 'salsify-1', downlink: { constantMbps: 2 }, uplink: { constantMbps: 2 }, durationS: 4, video: VIDEO, delayMs: 10 } as const;
  // Datagram 403 is the second of its frame (the receiver, as alfalfa's, conceals the frame from its first).
  const r = await runSalsifySim({ ...base, dropDownlinkDatagrams: [403] });
  const line = fates(r);
  assert.is(r.counters.sender.lossesDetected, 1);
  assert.is(r.counters.sender.keyFrames, 1); // the first frame only
  assert.is(r.counters.receiver.framesConcealed, 1);
  assert.is(r.summary.framesLost + r.summary.framesNeverShown, 0, line);
  const concealed = r.frames.filter((f) => f.fate === 'shown' && f.lastArrivalMs === undefined);
  assert.is(concealed.length, 1, 'the concealed frame is shown without all of its datagrams');
  // Frames sent before the loss is known refer to the damaged state: decoded from it, shown.
  // The loss shows in the acknowledgement of the next frame, about 8 frames at 60 fps later.
  const onOther = r.counters.receiver.framesOnOtherState;
  assert.ok(onOther >= 1 && onOther <= 10, `${onOther} frames decoded from the damaged state`);
  const rec = r.senderEvents.filter((e) => e.kind === 'recovery');
  assert.is(rec.length, 1);
  // The same run without the loss: identical up to the loss, and there the concealed frame has a lower SSIM.
  const clean = await runSalsifySim(base);
  const i = concealed[0].sourceIndex;
  assert.equal(clean.frames.slice(0, i).map((f) => f.ssim), r.frames.slice(0, i).map((f) => f.ssim));
  assert.is(clean.frames[i].quantizer, r.frames[i].quantizer);
  assert.ok(r.frames[i].ssim! < clean.frames[i].ssim!, `concealed ${r.frames[i].ssim} vs ${clean.frames[i].ssim}`);
  assert.ok(clean.summary.framesShown - r.summary.framesShown <= 10, `${clean.summary.framesShown} vs ${r.summary.framesShown}`);
  // Without concealment (conceal: false, --no-conceal) the frame is lost and the frames referring to it are never shown.
  const abandoned = await runSalsifySim({ ...base, dropDownlinkDatagrams: [403], conceal: false });
  assert.is(abandoned.counters.receiver.concealment, 0);
  assert.is(abandoned.summary.framesLost, 1, fates(abandoned));
  assert.ok(abandoned.summary.framesNeverShown >= 1, fates(abandoned));
  assert.ok(abandoned.summary.framesShown < r.summary.framesShown);
  // A whole frame lost (datagram 400 is one frame's only one): it is lost, and the frames after it are still shown.
  const whole = await runSalsifySim({ ...base, dropDownlinkDatagrams: [400] });
  assert.is(whole.summary.framesLost, 1, fates(whole));
  assert.is(whole.summary.framesNeverShown, 0, fates(whole));
  assert.ok(whole.counters.receiver.framesOnOtherState >= 1);
});

test('the same seed gives byte-identical output; another seed on a lossy link does not', async () => {
  const config = { scheme: 'salsify-2', downlink: { constantMbps: 3 }, uplink: { constantMbps: 3 }, durationS: 3, video: VIDEO, delayMs: 20, downlinkLoss: 0.02 } as const;
  const a = JSON.stringify(await runSalsifySim({ ...config, seed: 7 }));
  const b = JSON.stringify(await runSalsifySim({ ...config, seed: 7 }));
  const c = JSON.stringify(await runSalsifySim({ ...config, seed: 8 }));
  assert.ok(a === b, 'two runs with seed 7 differ');
  assert.ok(a !== c, 'seeds 7 and 8 gave the same run');
});

test('conventional-1s: one encoding per frame, never skips', async () => {
  const r = await runSalsifySim({ scheme: 'conventional-1s', downlink: { constantMbps: 2 }, uplink: { constantMbps: 2 }, durationS: 3, video: VIDEO, delayMs: 10 });
  assert.is(r.counters.sender.encoded, r.summary.framesSent);
  assert.is(r.counters.sender.skipped, 0);
  assert.is(r.frames.filter((f) => f.fate === 'skipped').length, 0);
});

test('a scheme given as a hook runs instead of the one the config names, which the record keeps', async () => {
  const inner = createScheme('salsify-1', { initialQuantizer: 64, betterStep: -17, worseStep: 23, maxSkips: 3, frameIntervalMs: 1000 / 30, maxPayload: 1400 });
  // Salsify-1 that skips every frame captured before 1 s (a sender that starts late).
  const late = { ...inner, choose: (encoded: Parameters<typeof inner.choose>[0], view: Parameters<typeof inner.choose>[1]) => (view.now < 1000 ? 'skip' as const : inner.choose(encoded, view)) };
  const input = { scheme: 'salsify-1', downlink: { constantMbps: 2 }, uplink: { constantMbps: 2 }, durationS: 2, video: 'synthetic:640x360@30', delayMs: 10 } as const;
  const r = await runSalsifySim(input, { scheme: late });
  assert.is(r.config.scheme, 'salsify-1');
  const sent = r.senderEvents.filter((e) => e.kind === 'sent');
  assert.ok(sent.length > 0 && sent.every((e) => e.time >= 1000), `first frame sent at ${sent[0]?.time} ms`);
  const plain = await runSalsifySim(input);
  assert.ok(plain.senderEvents.some((e) => e.kind === 'sent' && e.time < 1000), 'without the hook frames go out before 1 s');
});

test('other traffic shares the downlink with the sender: every packet of it crosses the link and the receiver discards it', async () => {
  const input = { scheme: 'salsify-1', downlink: { constantMbps: 0.5 }, uplink: { constantMbps: 2 }, durationS: 2, drainMs: 500, video: 'synthetic:640x360@30', delayMs: 10 } as const;
  const plain = await runSalsifySim(input);
  // 600 bytes of payload and the link's 32 of overhead every 20 ms.
  const busy = await runSalsifySim({ ...input, downlinkOtherTraffic: { bytesPerS: 632 * 50, packetBytes: 632 } });
  assert.equal(busy.config.downlinkOtherTraffic, { bytesPerS: 31_600, packetBytes: 632 });
  // 2.5 s of simulated time: 124 packets (at 20, 40, ..., 2480 ms) enter the downlink; the receiver discards those delivered by the end.
  assert.is(busy.counters.downlink.packetsIn - busy.counters.sender.datagramsSent, 124);
  const discarded = busy.counters.receiver.badDatagrams - plain.counters.receiver.badDatagrams;
  assert.ok(discarded >= 110 && discarded <= 124, `${discarded} discarded`);
  // Half of a 0.5 Mbit/s link taken (253 kbit/s): the sender's frames wait longer.
  assert.ok(busy.summary.signalDelayMs.mean > plain.summary.signalDelayMs.mean, `${busy.summary.signalDelayMs.mean} <= ${plain.summary.signalDelayMs.mean}`);
  const none = await runSalsifySim({ ...input, downlinkOtherTraffic: null });
  assert.equal(none.summary, plain.summary);
  await rejects(runSalsifySim({ ...input, downlinkOtherTraffic: { bytesPerS: 4000, packetBytes: 32 } }), /downlinkOtherTraffic must be null or \{ bytesPerS > 0 and at most 1e9, packetBytes an integer from 33 to 1504 .*got \{"bytesPerS":4000,"packetBytes":32\}/);
  await rejects(runSalsifySim({ ...input, downlinkOtherTraffic: { bytesPerS: 0, packetBytes: 100 } }), /downlinkOtherTraffic must be null or/);
});

test('link utilisation counts the downlink\'s departures over its opportunities while frames are captured', async () => {
  const r = await runSalsifySim({ scheme: 'salsify-1', downlink: { constantMbps: 2 }, uplink: { constantMbps: 2 }, durationS: 2, video: VIDEO, delayMs: 10 });
  // 2 Mbit/s is one 1504-byte opportunity every 6.016 ms (on whole milliseconds): 332 or 333 of them in [0, 2000).
  const link = r.link!;
  assert.is(link.fromMs, 0);
  assert.ok(Math.abs(link.toMs - 2000) < 1e-9, `window ends at ${link.toMs}`);
  assert.ok(link.capacityBytes === 332 * 1504 || link.capacityBytes === 333 * 1504, `capacity ${link.capacityBytes} bytes`);
  assert.ok(link.departedBytes > 0.8 * link.capacityBytes && link.departedBytes <= r.counters.downlink.bytesOut, `departed ${link.departedBytes} bytes`);
  assert.is(r.summary.linkUtilization, link.departedBytes / link.capacityBytes);
});

test('"skipped" is the sender\'s choice only: frames superseded while the encoder was busy are counted apart', async () => {
  // 1080p at 120 fps: salsify-1's two encodings take longer than a frame interval, so captures supersede each other.
  const r = await runSalsifySim({ scheme: 'salsify-1', downlink: { constantMbps: 4 }, uplink: { constantMbps: 4 }, durationS: 1, video: 'synthetic:1920x1080@120', delayMs: 10 });
  const s = r.summary;
  const sender = r.counters.sender;
  assert.ok(sender.superseded > 0 && sender.skipped > 0, JSON.stringify(sender));
  assert.is(s.framesSkipped, sender.skipped);
  assert.is(s.framesSuperseded, sender.superseded);
  assert.is(s.framesSent, sender.sent);
  assert.is(s.framesCaptured - s.framesSent, s.framesSkipped + s.framesSuperseded);
  assert.is(r.frames.filter((f) => f.fate === 'superseded' && f.frameNumber !== undefined).length, 0, 'a superseded frame was never encoded');
});

test('bad configurations are rejected with a RangeError or TypeError naming the field and the value', async () => {
  const base = { downlink: { constantMbps: 2 }, uplink: { constantMbps: 2 }, durationS: 0.2, video: VIDEO };
  // The base itself is a good configuration: each case fails because of its one bad field.
  const ok = await runSalsifySim(base);
  assert.is(ok.summary.framesCaptured, 12);
  assert.is(ok.config.queueArgs, DEFAULT_SIM_CONFIG.queueArgs);
  for (const [bad, kind, pattern] of [
    [{ scheme: 'salsify-3' }, RangeError, /config: scheme must be salsify-1 \| salsify-2 \| conventional-1s \| salsify-nograce \| salsify-targetsize \| salsify-4 \| webrtc-like \| oracle \| oracle-quality, got "salsify-3"/],
    [{ durationS: 0 }, RangeError, /config: durationS must be a number of seconds > 0, got 0/],
    [{ downlinkLoss: 1.5 }, RangeError, /config: downlinkLoss must be a probability in \[0, 1\], got 1\.5/],
    [{ codec: 'h264' }, RangeError, /config: codec must be "model" or "vp8", got "h264"/],
    [{ conceal: 'no' }, RangeError, /config: conceal must be true or false, got "no"/],
    [{ downlink: 42 }, TypeError, /downlink must be a trace name\/path or \{ constantMbps \}, got 42/],
    [{ downlink: 'no-such-trace-file' }, Error, /no-such-trace-file/],
  ] as const) {
    let error: unknown;
    await runSalsifySim({ ...base, ...(bad as object) } as never).catch((e) => (error = e));
    assert.instance(error, kind, `${JSON.stringify(bad)}: ${error}`);
    assert.match((error as Error).message, pattern);
  }
  await rejects(runSalsifySim({ ...base, downlink: 'no-such-trace-file' }), /no-such-trace-file.*(not found|no such)/i);
});

test.run();
