// One run as `salsify receive` sees it. The first Salsify fragment names the
// run (its connection id, the run id) and the SalsifyReceiver of that run is
// created then; anything before it is ignored (and counted). Every frame's
// arrival, every shown frame (with the model codec's SSIM when there is one)
// goes to the records; what is kept of shown frames goes to SavedOutput. The
// session tells when the run went idle and when its decodes have drained,
// from events (datagrams, decodes ending, timers), not by polling.
import type { FunctionalCodec } from '../../codec-bridge/types.ts';
import { formatAddress } from '../../net/address.ts';
import type { EndpointContext } from '../../net/endpoint.ts';
import type { UdpEndpoint } from '../../net/udp-endpoint.ts';
import { decodeDatagram, type FragmentDatagram } from '../datagram.ts';
import { FrameArrivals, type FrameArrival } from '../frame-arrivals.ts';
import type { ModelCodec } from '../model-codec.ts';
import { SalsifyReceiver, type ShownFrame } from '../receiver.ts';
import { countingWork, type CountingWork } from './counting-work.ts';
import { cpuMs } from './cpu-time.ts';
import type { FirstFailure } from './first-failure.ts';
import { withModelledWorkTime } from './modelled-work.ts';
import type { RecordsFile } from './records-file.ts';
import { runIdOf } from './records.ts';
import type { SavedOutput } from './saved-output.ts';
import { waitUntil } from './wait-until.ts';

export interface ReceiveSessionOptions {
  readonly endpoint: UdpEndpoint;
  readonly codec: FunctionalCodec;
  readonly records: RecordsFile;
  readonly saved: SavedOutput;
  readonly failure: FirstFailure;
  /** Added to endpoint clock readings for shared-clock time. */
  readonly offset: number;
}

/** The endpoint as the receiver sees it: datagrams are handed over by the session once the run started. */
function forwardingContext(endpoint: UdpEndpoint): EndpointContext & { deliver(bytes: Uint8Array): void } {
  let handler: ((bytes: Uint8Array) => void) | undefined;
  return {
    now: () => endpoint.now(),
    setTimer: (ms, callback) => endpoint.setTimer(ms, callback),
    send: (bytes) => endpoint.send(bytes),
    work: (task, ms) => endpoint.work(task, ms),
    onReceive: (h) => {
      handler = h;
    },
    deliver: (bytes) => handler?.(bytes),
  };
}

export class ReceiveSession {
  readonly #o: ReceiveSessionOptions;
  readonly #ctx: ReturnType<typeof forwardingContext>;
  readonly #decoding: CountingWork;
  readonly #modelled: ModelCodec | undefined;
  readonly #arrivals = new FrameArrivals();
  /** Incomplete frames shown concealed, whose arrival record was written when they were shown. */
  readonly #arrivalWritten = new Set<number>();
  readonly #listeners = new Set<() => void>();
  #receiver: SalsifyReceiver | undefined;
  #runId: string | undefined;
  #lastDatagram = 0;
  #ignoredBeforeRun = 0;
  #startedRun!: () => void;
  readonly #started = new Promise<void>((resolve) => {
    this.#startedRun = resolve;
  });

  constructor(options: ReceiveSessionOptions) {
    this.#o = options;
    this.#ctx = forwardingContext(options.endpoint);
    this.#modelled = options.codec.name === 'model' ? (options.codec as ModelCodec) : undefined;
    this.#decoding = countingWork(this.#modelled ? withModelledWorkTime(this.#ctx) : this.#ctx);
    this.#decoding.onTaskEnd(() => {
      options.failure.report(this.#receiver?.failure ?? options.records.failure);
      this.#notify();
    });
    options.endpoint.onReceive((bytes) => this.#onDatagram(bytes));
  }

  get runId(): string | undefined {
    return this.#runId;
  }

  get framesShown(): number {
    return this.#receiver?.counters.framesShown ?? 0;
  }

  #notify(): void {
    for (const l of this.#listeners) l();
  }

  #shared(t: number): number {
    return t + this.#o.offset;
  }

  #onDatagram(bytes: Uint8Array): void {
    this.#lastDatagram = this.#o.endpoint.now();
    if (!this.#receiver && !this.#startRun(bytes)) {
      this.#ignoredBeforeRun++;
      return;
    }
    this.#ctx.deliver(bytes);
    this.#notify();
  }

  /** The run starts with its first Salsify fragment; returns false for anything else. */
  #startRun(bytes: Uint8Array): boolean {
    let connectionId: number;
    try {
      const d = decodeDatagram(bytes);
      if (d.type !== 'fragment') return false;
      connectionId = d.connectionId;
    } catch {
      return false;
    }
    const runId = runIdOf(connectionId);
    const peer = this.#o.endpoint.peer();
    this.#runId = runId;
    this.#o.records.write({ type: 'run', t: this.#shared(this.#lastDatagram), runId, connectionId, peer: peer ? formatAddress(peer) : '?' });
    process.stderr.write(`salsify receive: run ${runId} from ${peer ? formatAddress(peer) : '?'}\n`);
    this.#receiver = new SalsifyReceiver({
      ctx: this.#decoding, codec: this.#o.codec, connectionId,
      onFragment: (d, at) => this.#onFragment(d, at),
      onShown: (s) => this.#onShown(s),
    });
    this.#startedRun();
    return true;
  }

  #arrivalRecord(frame: number, a: FrameArrival, t: number): object {
    return { type: 'arrival', t: this.#shared(t), frame, first: this.#shared(a.firstMs), fragments: a.fragments, of: a.fragmentCount };
  }

  #onFragment(d: FragmentDatagram, at: number): void {
    if (this.#arrivalWritten.has(d.frameNumber)) return; // shown concealed: its arrival is recorded as it was then
    const complete = this.#arrivals.fragment(d, at);
    if (complete) this.#o.records.write(this.#arrivalRecord(d.frameNumber, complete, complete.lastMs!));
  }

  #onShown(s: ShownFrame): void {
    const record: Record<string, unknown> = {
      type: 'shown', t: this.#shared(s.shownAt), frame: s.frameNumber, bytes: s.frame.length, src: s.sourceStateId, dst: s.targetStateId,
    };
    if (this.#modelled) record.ssim = this.#modelled.modelledSsim(s.frame, s.state);
    if (s.concealed) {
      // How to decode it again (analyze): from which state, to which, and the whole frame's length.
      Object.assign(record, { concealed: true, from: s.fromStateId, reached: s.state.id, length: s.frameLength });
      const a = this.#arrivals.get(s.frameNumber);
      if (a && a.lastMs === undefined) {
        // Shown from what arrived: its arrival record now, before the shown record that needs it.
        this.#o.records.write(this.#arrivalRecord(s.frameNumber, a, a.latestMs));
        this.#arrivalWritten.add(s.frameNumber);
      }
    }
    const picture = this.#o.saved.save(s);
    if (picture !== undefined) record.picture = picture;
    this.#o.records.write(record);
  }

  /** Resolves once a run started and no datagram came for `timeoutMs`. */
  async idle(timeoutMs: number): Promise<string> {
    await this.#started;
    const ctx = this.#o.endpoint;
    for (;;) {
      // One timer per quiet period: it fires when the last datagram is `timeoutMs` old, or is set again.
      const left = this.#lastDatagram + timeoutMs - ctx.now();
      if (left <= 0) return 'idle';
      await new Promise<void>((resolve) => ctx.setTimer(left, resolve));
    }
  }

  /** Waits (at most `maxMs`) for the frames already complete to finish decoding. */
  async drain(maxMs: number): Promise<void> {
    const receiver = this.#receiver;
    if (!receiver) return;
    const drained = waitUntil(() => receiver.decodeQueueLength === 0 && this.#decoding.busy() === 0, this.#o.endpoint, maxMs);
    this.#listeners.add(drained.check);
    try {
      await drained.done;
    } finally {
      this.#listeners.delete(drained.check);
    }
  }

  counters(): Record<string, unknown> {
    return {
      ...(this.#receiver?.counters ?? {}), picturesSaved: this.#o.saved.picturesSaved, ignoredBeforeRun: this.#ignoredBeforeRun,
      foreignUdpDatagrams: this.#o.endpoint.foreignDatagrams(), cpuMs: cpuMs(),
    };
  }

  /** The arrival records of frames still incomplete, then the end record (once). */
  end(reason: string, error?: unknown): void {
    const records = this.#o.records;
    if (records.ended) return;
    for (const [frame, a] of this.#arrivals.incomplete()) if (!this.#arrivalWritten.has(frame)) records.write(this.#arrivalRecord(frame, a, a.latestMs));
    records.end(reason, this.counters(), error);
  }
}
