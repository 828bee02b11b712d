// The sender against a real receiver over a simulated path, with hostile
// traffic mixed into its acknowledgement stream.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Simulator } from '../../src/net/simulator.ts';
import { createSimNetwork } from '../../src/net/sim-network.ts';
import { SalsifySender } from '../../src/salsify/sender.ts';
import { SalsifyReceiver } from '../../src/salsify/receiver.ts';
import { createModelCodec } from '../../src/salsify/model-codec.ts';
import { encodeAck } from '../../src/salsify/datagram.ts';
import { createSyntheticScene } from '../../src/codec-bridge/video/synthetic-scene.ts';
import { constantRateTrace } from '../../src/link-emu/trace-generators.ts';
import { createRng } from '../../src/common/random.ts';

test('garbage, corrupted, foreign and made-up acknowledgements are counted and ignored', async () => {
  const sim = new Simulator();
  const trace = constantRateTrace({ rateMbps: 2 });
  const net = createSimNetwork(sim, {
    downlink: [{ kind: 'link', trace, queue: 'droptail', queueArgs: 'packets=256' }, { kind: 'delay', ms: 10 }],
    uplink: [{ kind: 'delay', ms: 10 }],
    seed: 1,
  });
  const codec = createModelCodec();
  const source = createSyntheticScene({ width: 320, height: 180 });
  const sender = new SalsifySender({ ctx: net.outside, codec, source, scheme: 'salsify-1', connectionId: 9, frames: 120 });
  const receiver = new SalsifyReceiver({ ctx: net.inside, codec, connectionId: 9 });
  const rng = createRng('hostile-acks');
  let sentJunk = 0;
  const hostile = () => {
    const kind = rng.int(4);
    let bytes: Uint8Array;
    if (kind === 0) {
      bytes = new Uint8Array(rng.int(100));
      for (let i = 0; i < bytes.length; i++) bytes[i] = rng.int(256);
    } else {
      const ack = encodeAck({
        connectionId: kind === 1 ? 10 : 9, frameNumber: kind === 3 ? 1_000_000 + rng.int(1000) : rng.int(50), fragmentIndex: rng.int(3),
        interArrivalUs: 1, currentStateId: '0123456789abcdef', heldStateIds: [],
      });
      if (kind === 2) ack[5] ^= 0x40; // corrupted
      bytes = ack;
    }
    net.inside.send(bytes);
    sentJunk++;
    if (sim.now() < 1900) sim.after(7, hostile);
  };
  sim.after(3, hostile);
  sender.start();
  await sim.run({ until: 3000 });
  const c = sender.counters;
  assert.ok(sentJunk > 200);
  assert.ok(c.badDatagrams > 0 && c.foreignDatagrams > 0 && c.unexpectedDatagrams > 0, JSON.stringify(c));
  assert.is(c.badDatagrams + c.foreignDatagrams + c.unexpectedDatagrams + c.acks, sentJunk + receiver.counters.acksSent);
  assert.is(c.lossesDetected, 0);
  assert.is(receiver.counters.framesShown, c.sent);
  assert.ok(c.sent > 60);
  assert.is(sender.failure, undefined);
});

test('bad options are rejected with the option named', () => {
  const sim = new Simulator();
  const net = createSimNetwork(sim, { downlink: [], uplink: [], seed: 1 });
  const base = { ctx: net.outside, codec: createModelCodec(), source: createSyntheticScene({ width: 64, height: 36 }), scheme: 'salsify-1', connectionId: 1 } as const;
  assert.throws(() => new SalsifySender({ ...base, scheme: 'fast' as never }), /scheme/);
  assert.throws(() => new SalsifySender({ ...base, connectionId: -1 }), /connection id/);
  assert.throws(() => new SalsifySender({ ...base, maxPayload: 5000 }), /max payload/);
  assert.throws(() => new SalsifySender({ ...base, initialQuantizer: 130 }), /initial quantizer/);
  assert.throws(() => new SalsifySender({ ...base, frames: 1.5 }), /frames/);
});

test.run();
