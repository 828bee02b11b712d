// Pinned figures of a short deterministic run per scheme: the sender and a
// real receiver over a simulated ATT-LTE-driving-2016 link (model codec, 720p60
// synthetic video, 4 s), with every 100th video datagram dropped before the
// link so that loss recovery runs too. The figures were re-pinned when the
// sender moved to the reference control loop (alfalfa's: target size, frame
// clock, grace period, pacing, the 5 s conservative period) and the schemes
// of issue 9 were added, and again when the receiver began to conceal losses as
// alfalfa's does (more frames shown; its acknowledgements then report a damaged
// state the sender does not know, so a second loss is detected once the first
// conservative period ends), and webrtc-like's once more when its GCC took
// libwebrtc's LossBasedBweV2 (17 of its 240 frames fewer sent in the 4 s);
// a change of the control loop's behaviour changes them. The path is only a
// drop-tail link in each direction, so a change of the stage order elsewhere
// cannot move them.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fileURLToPath } from 'node:url';
import { Simulator } from '../../src/net/simulator.ts';
import { createSimNetwork } from '../../src/net/sim-network.ts';
import { SalsifySender, SCHEMES, type Scheme, type SenderEvent } from '../../src/salsify/sender.ts';
import { SalsifyReceiver } from '../../src/salsify/receiver.ts';
import { createModelCodec } from '../../src/salsify/model-codec.ts';
import { createSyntheticScene } from '../../src/codec-bridge/video/synthetic-scene.ts';
import { loadTrace } from '../../src/link-emu/trace-files.ts';
import { crc32 } from '../../src/salsify/crc32.ts';

const TRACE = fileURLToPath(new URL('../../../shared/traces/ATT-LTE-driving-2016', import.meta.url));

async function run(scheme: Scheme) {
  const sim = new Simulator();
  const link = (trace: string) => ({ kind: 'link', trace: loadTrace(`${TRACE}.${trace}`), queue: 'droptail', queueArgs: 'packets=256' }) as const;
  const net = createSimNetwork(sim, { downlink: [link('down')], uplink: [link('up')], seed: 1 });
  let datagram = 0;
  const outside = { ...net.outside, send: (bytes: Uint8Array) => { if (++datagram % 100 !== 0) net.outside.send(bytes); } };
  const codec = createModelCodec();
  const events: SenderEvent[] = [];
  const sender = new SalsifySender({
    ctx: outside, codec, source: createSyntheticScene({ width: 1280, height: 720, fps: 60 }), scheme, connectionId: 77, frames: 240,
    concurrentEncodes: true, log: (e) => events.push(e),
  });
  const receiver = new SalsifyReceiver({ ctx: net.inside, codec, connectionId: 77 });
  sender.start();
  await sim.run({ until: 6000 });
  if (sender.failure) throw sender.failure;
  const sent = events.filter((e): e is Extract<SenderEvent, { kind: 'sent' }> => e.kind === 'sent');
  // One checksum over what the scheme decided for every frame: when, at which quantizer, which encoding, from which state.
  const decisions = events.map((e) =>
    e.kind === 'sent' ? `s${e.sourceIndex}:${e.time.toFixed(6)}:${e.quantizer}:${e.choice}:${e.bytes}:${e.targetBytes}:${e.sourceStateId}:${e.encodeMs.toFixed(6)}`
    : e.kind === 'skip' ? `k${e.sourceIndex}:${e.time.toFixed(6)}:${e.betterBytes}:${e.worseBytes}:${e.targetBytes}`
    : e.kind === 'capture' ? '' : `${e.kind}:${e.time.toFixed(6)}`).join('\n');
  const c = sender.counters;
  return {
    sent: c.sent, skipped: c.skipped, superseded: c.superseded, encoded: c.encoded, datagramsSent: c.datagramsSent, bytesSent: c.bytesSent,
    lossesDetected: c.lossesDetected, keyFrames: c.keyFrames, shown: receiver.counters.framesShown,
    meanQuantizer: Math.round((sent.reduce((a, e) => a + e.quantizer, 0) / sent.length) * 100) / 100,
    decisions: crc32(new TextEncoder().encode(decisions)).toString(16),
  };
}

const PINNED: Record<Scheme, Awaited<ReturnType<typeof run>>> = {
  'salsify-1': {"sent":126,"skipped":114,"superseded":0,"encoded":480,"datagramsSent":2773,"bytesSent":3915059,"lossesDetected":2,"keyFrames":1,"shown":125,"meanQuantizer":38.54,"decisions":"51ae56f5"},
  'salsify-2': {"sent":133,"skipped":107,"superseded":0,"encoded":480,"datagramsSent":2820,"bytesSent":3979812,"lossesDetected":2,"keyFrames":1,"shown":132,"meanQuantizer":39.17,"decisions":"a6ce2eff"},
  'conventional-1s': {"sent":240,"skipped":0,"superseded":0,"encoded":240,"datagramsSent":3226,"bytesSent":4507535,"lossesDetected":2,"keyFrames":1,"shown":236,"meanQuantizer":19,"decisions":"df5491a9"},
  // Salsify-4's encodings with grace 0, as the paper ran it (salsify-nograce.ts).
  'salsify-nograce': {"sent":140,"skipped":100,"superseded":0,"encoded":960,"datagramsSent":2611,"bytesSent":3672509,"lossesDetected":2,"keyFrames":1,"shown":135,"meanQuantizer":49.61,"decisions":"3f78fb85"},
  // Searched on the reference's size estimate (2.1 x the real size), its sample encodes charged.
  'salsify-targetsize': {"sent":109,"skipped":131,"superseded":0,"encoded":240,"datagramsSent":2669,"bytesSent":3795531,"lossesDetected":2,"keyFrames":1,"shown":109,"meanQuantizer":20.62,"decisions":"85a1c333"},
  'salsify-4': {"sent":136,"skipped":104,"superseded":0,"encoded":960,"datagramsSent":2799,"bytesSent":3950410,"lossesDetected":2,"keyFrames":1,"shown":135,"meanQuantizer":46.24,"decisions":"5867bd16"},
  // GCC starts at 300 kbit/s: 625 bytes a frame at 60 fps, less than 720p at quantizer 127; after the key frame the encoder buffer drops frames until it drains.
  // Its GCC is libwebrtc's goog_cc since gcc became that (gcc-draft02 gave sent 216, skipped 24, 225113 bytes).
  'webrtc-like': {"sent":197,"skipped":43,"superseded":0,"encoded":240,"datagramsSent":221,"bytesSent":205267,"lossesDetected":1,"keyFrames":1,"shown":196,"meanQuantizer":127,"decisions":"74f1cfb0"},
};

for (const scheme of SCHEMES) {
  test(`${scheme}: the figures of a pinned 4 s run`, async () => {
    const figures = await run(scheme);
    if (process.env.PRINT_PINNED) console.log(`  '${scheme}': ${JSON.stringify(figures)},`);
    assert.equal(figures, PINNED[scheme]);
  });
}

test.run();
