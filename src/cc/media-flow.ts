// A media flow: a real-time media sender driven by a rate controller
// (controller.ts), and its receiver, written only against EndpointContext.
//
// The sender is an ideal media source: it always has data, and a pacer lets
// it out at the controller's target bitrate, as WebRTC's pacer does: every
// pacing interval (5 ms) the budget grows by target x interval and packets
// leave while it is positive (each takes its size from it, so the budget may
// go one packet into debt, and at most one interval's worth of unused budget
// is carried over: a paced flow never bursts). A controller with a pacing
// rate of its own (pacingBitrate(): a bandwidth probe) is paced at that.
// Each packet carries a transport-wide sequence number and its send time
// (media-flow-wire.ts); the controller is told of each as it leaves.
//
// The receiver records the arrival time of every packet and every feedback
// interval (100 ms) reports every sequence number from the first not yet
// reported up to the highest received, with its arrival time or "not
// received"; a packet arriving after its number was reported is counted late
// and not reported again. Reports go back over the receiver's context and
// the sender hands them to the controller.
//
// A window-based controller (controller.ts: WindowedRateController, SCReAM)
// takes over the sending: every pacing interval the source produces the
// target's worth of packets into a send queue (send-queue.ts), and the
// oldest leaves only when the controller's transmitDelayMs says 0; it is
// asked again after each production, feedback report and packet sent, and
// when the delay it gave has passed. Pausing empties the queue.
//
// Datagrams that fail the wire format's checks, belong to another flow, or
// report sequence numbers never sent are counted as bad and ignored.
// Deterministic: no randomness, all time from the contexts' clocks.
import type { EndpointContext, TimerHandle } from '../net/endpoint.ts';
import { toolkitError } from '../common/errors.ts';
import { isWindowed, type FeedbackReport, type PacketReport, type RateController, type RateControllerModule, type RateControllerOptions } from './controller.ts';
import { MediaSendQueue } from './send-queue.ts';
import type { Flow, FlowFactory, FlowOptions } from './flow.ts';
import { MAX_REPORTED_PER_FEEDBACK, MEDIA_HEADER_BYTES, encodeFeedback, encodeMediaPacket, parseFeedback, parseMediaPacket } from './media-flow-wire.ts';

export interface MediaFlowOptions {
  /** Bytes of every media datagram's payload (default 1200, at least 16). */
  readonly payloadBytes?: number;
  /** Pacer interval, ms (default 5). */
  readonly pacingIntervalMs?: number;
  /** How often the receiver reports, ms (default 100). */
  readonly feedbackIntervalMs?: number;
  /** Target bitrates in bit/s given to the controller (defaults 300 kbit/s, 50 kbit/s, 10 Mbit/s). */
  readonly initialBitrate?: number;
  readonly minBitrate?: number;
  readonly maxBitrate?: number;
  /** Told of every media packet that reaches the receiver (for per-flow statistics). */
  readonly onPacketReceived?: (packet: ReceivedMediaPacket) => void;
}

export interface ReceivedMediaPacket {
  readonly flowId: number;
  readonly sequence: number;
  readonly sizeBytes: number;
  /** Sender's clock, ms. */
  readonly sendTimeMs: number;
  /** Receiver's clock, ms. */
  readonly arrivalTimeMs: number;
}

export interface MediaFlowStats {
  packetsSent: number;
  bytesSent: number;
  packetsReceived: number;
  bytesReceived: number;
  /** Packets that arrived after their sequence number had been reported. */
  latePackets: number;
  feedbackSent: number;
  feedbackReceived: number;
  /** Datagrams refused by the sender (bad feedback) and by the receiver (bad media). */
  badAtSender: number;
  badAtReceiver: number;
}

export interface MediaFlow extends Flow {
  targetBitrate(): number;
  readonly controller: RateController;
  stats(): MediaFlowStats;
}

export interface MediaFlowFactory extends FlowFactory {
  create(sender: EndpointContext, receiver: EndpointContext, options: FlowOptions): MediaFlow;
}

export const MEDIA_FLOW_DEFAULTS = {
  payloadBytes: 1200,
  pacingIntervalMs: 5,
  feedbackIntervalMs: 100,
  initialBitrate: 300_000,
  minBitrate: 50_000,
  maxBitrate: 10_000_000,
} as const;

/** The most feedback datagrams one report interval sends (older unreported numbers beyond them are skipped). */
const MAX_FEEDBACK_DATAGRAMS = 64;

function positive(name: string, value: number, integer = false): number {
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) throw new RangeError(`mediaFlow: ${name} must be a ${integer ? 'positive integer' : 'finite number > 0'}, got ${value}`);
  return value;
}

/** A FlowFactory whose flows send media paced at the rate `module`'s controller sets. */
export function mediaFlow(module: RateControllerModule, options: MediaFlowOptions = {}): MediaFlowFactory {
  const payloadBytes = positive('payloadBytes', options.payloadBytes ?? MEDIA_FLOW_DEFAULTS.payloadBytes, true);
  if (payloadBytes < MEDIA_HEADER_BYTES) throw new RangeError(`mediaFlow: payloadBytes must be at least ${MEDIA_HEADER_BYTES}, got ${payloadBytes}`);
  const pacingIntervalMs = positive('pacingIntervalMs', options.pacingIntervalMs ?? MEDIA_FLOW_DEFAULTS.pacingIntervalMs);
  const feedbackIntervalMs = positive('feedbackIntervalMs', options.feedbackIntervalMs ?? MEDIA_FLOW_DEFAULTS.feedbackIntervalMs);
  const rates: RateControllerOptions = {
    initialBitrate: positive('initialBitrate', options.initialBitrate ?? MEDIA_FLOW_DEFAULTS.initialBitrate),
    minBitrate: positive('minBitrate', options.minBitrate ?? MEDIA_FLOW_DEFAULTS.minBitrate),
    maxBitrate: positive('maxBitrate', options.maxBitrate ?? MEDIA_FLOW_DEFAULTS.maxBitrate),
  };
  if (!(rates.minBitrate <= rates.initialBitrate && rates.initialBitrate <= rates.maxBitrate)) {
    throw new RangeError(`mediaFlow: bitrates must satisfy min <= initial <= max, got ${rates.minBitrate}, ${rates.initialBitrate}, ${rates.maxBitrate}`);
  }
  return {
    name: module.name,
    create(sender, receiver, flow) {
      return createMediaFlow(module, sender, receiver, flow, { payloadBytes, pacingIntervalMs, feedbackIntervalMs, rates, onPacketReceived: options.onPacketReceived });
    },
  };
}

interface Resolved {
  payloadBytes: number;
  pacingIntervalMs: number;
  feedbackIntervalMs: number;
  rates: RateControllerOptions;
  onPacketReceived: MediaFlowOptions['onPacketReceived'];
}

function createMediaFlow(module: RateControllerModule, senderCtx: EndpointContext, receiverCtx: EndpointContext, flow: FlowOptions, o: Resolved): MediaFlow {
  const flowId = flow.flowId & 0xffff;
  const controller = module.createController(o.rates);
  const stats: MediaFlowStats = { packetsSent: 0, bytesSent: 0, packetsReceived: 0, bytesReceived: 0, latePackets: 0, feedbackSent: 0, feedbackReceived: 0, badAtSender: 0, badAtReceiver: 0 };
  let started = false;
  let stopped = false;
  let paused = false;

  // ---- sender
  let nextSequence = 0;
  let budgetBytes = 0;
  let pacerTimer: TimerHandle | undefined;

  const target = (): number => {
    const rate = controller.targetBitrate();
    if (typeof rate !== 'number' || !Number.isFinite(rate) || rate < 0) {
      throw toolkitError('ERR_BAD_INPUT', `controller ${module.name}: targetBitrate() returned ${String(rate)}, not a finite number of bit/s >= 0`);
    }
    return Math.min(o.rates.maxBitrate, Math.max(o.rates.minBitrate, rate));
  };

  /** The pacer's rate: the controller's pacing rate (a probe's) if it has one, else the target. */
  const pacingRate = (): number => {
    if (controller.pacingBitrate === undefined) return target();
    const rate = controller.pacingBitrate();
    if (typeof rate !== 'number' || !Number.isFinite(rate) || rate < 0) {
      throw toolkitError('ERR_BAD_INPUT', `controller ${module.name}: pacingBitrate() returned ${String(rate)}, not a finite number of bit/s >= 0`);
    }
    return Math.min(o.rates.maxBitrate, Math.max(o.rates.minBitrate, rate));
  };

  const sendOne = () => {
    const sequence = nextSequence++;
    const sendTimeMs = senderCtx.now();
    senderCtx.send(encodeMediaPacket({ flowId, sequence, sendTimeMs }, o.payloadBytes));
    stats.packetsSent++;
    stats.bytesSent += o.payloadBytes;
    controller.onPacketSent({ sequence, sizeBytes: o.payloadBytes, sendTimeMs });
  };

  // ---- window-based sending (WindowedRateController)
  const windowed = isWindowed(controller) ? controller : undefined;
  const queue = new MediaSendQueue();
  let transmitTimer: TimerHandle | undefined;

  const transmit = () => {
    if (windowed === undefined || stopped || paused) return;
    transmitTimer?.cancel();
    transmitTimer = undefined;
    for (;;) {
      const delayMs = windowed.transmitDelayMs(senderCtx.now(), queue);
      if (delayMs === 0 && queue.packets() > 0) {
        queue.shift();
        sendOne();
        continue;
      }
      if (delayMs !== undefined && delayMs > 0) transmitTimer = senderCtx.setTimer(delayMs, transmit);
      return;
    }
  };

  const pace = () => {
    pacerTimer = undefined;
    if (stopped || paused) return;
    const grant = (pacingRate() / 8) * (o.pacingIntervalMs / 1000);
    budgetBytes = Math.min(budgetBytes + grant, Math.max(grant, o.payloadBytes));
    const produced: number[] = [];
    while (budgetBytes > 0) {
      budgetBytes -= o.payloadBytes;
      if (windowed === undefined) sendOne();
      else produced.push(o.payloadBytes);
    }
    if (windowed !== undefined) {
      if (produced.length > 0) {
        queue.pushFrame(produced, senderCtx.now());
        windowed.onMediaProduced(produced.length * o.payloadBytes, senderCtx.now(), queue);
      }
      transmit();
    }
    pacerTimer = senderCtx.setTimer(o.pacingIntervalMs, pace);
  };

  senderCtx.onReceive((bytes) => {
    if (stopped) return;
    const parsed = parseFeedback(bytes);
    if (!parsed.ok || parsed.value.flowId !== flowId || parsed.value.firstSequence + parsed.value.arrivals.length > nextSequence) {
      stats.badAtSender++;
      return;
    }
    stats.feedbackReceived++;
    const { firstSequence, arrivals } = parsed.value;
    const packets: PacketReport[] = arrivals.map((arrivalTimeMs, i) => ({ sequence: firstSequence + i, arrivalTimeMs }));
    const report: FeedbackReport = { packets };
    controller.onFeedback(report, senderCtx.now());
    transmit();
  });

  // ---- receiver
  const arrivals = new Map<number, number>();
  let nextToReport = 0;
  let highestReceived = -1;
  let feedbackTimer: TimerHandle | undefined;

  receiverCtx.onReceive((bytes) => {
    if (stopped) return;
    const parsed = parseMediaPacket(bytes);
    if (!parsed.ok || parsed.value.flowId !== flowId) {
      stats.badAtReceiver++;
      return;
    }
    const { sequence, sendTimeMs } = parsed.value;
    const arrivalTimeMs = receiverCtx.now();
    if (sequence < nextToReport || arrivals.has(sequence)) {
      stats.latePackets++;
      return;
    }
    arrivals.set(sequence, arrivalTimeMs);
    if (sequence > highestReceived) highestReceived = sequence;
    stats.packetsReceived++;
    stats.bytesReceived += bytes.length;
    o.onPacketReceived?.({ flowId: flow.flowId, sequence, sizeBytes: bytes.length, sendTimeMs, arrivalTimeMs });
  });

  const report = () => {
    feedbackTimer = undefined;
    if (stopped) return;
    if (highestReceived >= nextToReport) {
      const limit = MAX_FEEDBACK_DATAGRAMS * MAX_REPORTED_PER_FEEDBACK;
      let first = Math.max(nextToReport, highestReceived + 1 - limit);
      for (let s = nextToReport; s < first; s++) arrivals.delete(s);
      while (first <= highestReceived) {
        const last = Math.min(highestReceived, first + MAX_REPORTED_PER_FEEDBACK - 1);
        const times: (number | undefined)[] = [];
        for (let s = first; s <= last; s++) {
          times.push(arrivals.get(s));
          arrivals.delete(s);
        }
        receiverCtx.send(encodeFeedback({ flowId, firstSequence: first, arrivals: times }));
        stats.feedbackSent++;
        first = last + 1;
      }
      nextToReport = highestReceived + 1;
    }
    feedbackTimer = receiverCtx.setTimer(o.feedbackIntervalMs, report);
  };

  return {
    controller,
    start() {
      if (started) throw new Error('mediaFlow: start() called twice');
      started = true;
      if (stopped) return;
      pace();
      feedbackTimer = receiverCtx.setTimer(o.feedbackIntervalMs, report);
    },
    pause() {
      if (paused || stopped) return;
      paused = true;
      pacerTimer?.cancel();
      transmitTimer?.cancel();
      pacerTimer = transmitTimer = undefined;
      budgetBytes = 0;
      queue.clear();
    },
    resume() {
      if (!paused || stopped) return;
      paused = false;
      if (started) pace();
    },
    stop() {
      stopped = true;
      pacerTimer?.cancel();
      feedbackTimer?.cancel();
      transmitTimer?.cancel();
      pacerTimer = feedbackTimer = transmitTimer = undefined;
    },
    targetBitrate: () => target(),
    stats: () => ({ ...stats }),
  };
}
