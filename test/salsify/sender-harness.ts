// A SalsifySender on a hand-made endpoint (the simulator's clock, datagrams
// collected instead of sent) with acknowledgements made by hand, for tests
// that name exactly what the receiver reports and when.
import { Simulator } from '../../src/net/simulator.ts';
import type { EndpointContext } from '../../src/net/endpoint.ts';
import { SalsifySender, type SenderEvent, type SenderOptions } from '../../src/salsify/sender.ts';
import { createModelCodec } from '../../src/salsify/model-codec.ts';
import { decodeDatagram, encodeAck, type FragmentDatagram } from '../../src/salsify/datagram.ts';
import { createSyntheticScene } from '../../src/codec-bridge/video/synthetic-scene.ts';

const CONNECTION = 7;
export const FPS = 10; // a frame every 100 ms; a 64x36 frame is one datagram

type Sent = Extract<SenderEvent, { kind: 'sent' }>;

export function harness(options: Partial<SenderOptions> = {}) {
  const sim = new Simulator();
  let deliver: ((bytes: Uint8Array) => void) | undefined;
  const datagrams: FragmentDatagram[] = [];
  /** When each datagram left the sender (ms), in the order of `datagrams`. */
  const departures: number[] = [];
  const ctx: EndpointContext = {
    now: () => sim.now(),
    setTimer: (ms, callback) => sim.after(ms, callback),
    send: (bytes) => {
      const d = decodeDatagram(bytes);
      if (d.type !== 'fragment') throw new Error('the sender sent an acknowledgement');
      datagrams.push(d);
      departures.push(sim.now());
    },
    onReceive: (handler) => {
      deliver = handler;
    },
    work: (task, ms) => sim.work(task, ms),
  };
  const codec = createModelCodec();
  const events: SenderEvent[] = [];
  const sender = new SalsifySender({
    ctx, codec, source: createSyntheticScene({ width: 64, height: 36, fps: FPS }), scheme: 'conventional-1s',
    connectionId: CONNECTION, log: (e) => events.push(e), ...options,
  });
  const initialId = codec.initialState(64, 36).id;
  const sent = (): Sent[] => events.filter((e): e is Sent => e.kind === 'sent');
  const frame = (n: number): Sent => {
    const s = sent().find((e) => e.frameNumber === n);
    if (!s) throw new Error(`frame ${n} was not sent (sent: ${sent().map((e) => e.frameNumber).join(' ')})`);
    return s;
  };
  /** The receiver acknowledges frame `n`'s first fragment, reporting its state and the states it holds. */
  const ack = (n: number, currentStateId: string, heldStateIds: string[] = [], interArrivalUs = 5000) => {
    deliver!(encodeAck({ connectionId: CONNECTION, frameNumber: n, fragmentIndex: 0, interArrivalUs, currentStateId, heldStateIds }));
  };
  /** Runs the simulation to `ms`, then calls `action` there. */
  const at = async (ms: number, action: () => void = () => {}) => {
    await sim.run({ until: ms });
    action();
  };
  const ofKind = <K extends SenderEvent['kind']>(kind: K) => events.filter((e): e is Extract<SenderEvent, { kind: K }> => e.kind === kind);
  return { sim, sender, datagrams, departures, events, sent, frame, ack, at, ofKind, initialId };
}

