// The one record schema of a video run, whatever produced it (the simulator,
// the live endpoints, a later WebRTC bench): one record per source frame, and
// one per run (its config, counters, bytes sent, link use and frames).
//
// Times are milliseconds on the run's clock (the simulator's virtual time, or
// for a live run the time since the sender started). Every source frame has
// exactly one fate:
//   shown        sent, and this very frame was shown by the receiver
//   never-shown  sent, every datagram of it arrived, but it was not shown
//                (undecodable: its reference state was gone, it was stale or
//                corrupt, or its decode had not finished when the run ended)
//   lost         sent, but some datagram of it never reached the receiver
//   skipped      encoded, and the sender chose not to send it (no encoding fit
//                its target size): "skipped by choice"
//   superseded   never encoded: captured while the encoder was busy and
//                replaced by a newer capture before being encoded (a frame
//                still waiting when the sender stopped counts here too)
// "Skipped" means the sender's choice only, in every report.

export const FATES = ['shown', 'never-shown', 'lost', 'skipped', 'superseded'] as const;
export type Fate = (typeof FATES)[number];
/** The fates of frames the sender sent. */
export const SENT_FATES: readonly Fate[] = ['shown', 'never-shown', 'lost'];

export interface FrameRecord {
  readonly sourceIndex: number;
  /** When the source frame was captured. */
  readonly captureMs: number;
  readonly fate: Fate;
  /** Of an encoded frame that was sent: its number on the wire, when its first datagram left, its size and quantizer. */
  readonly frameNumber?: number;
  readonly sendMs?: number;
  readonly bytes?: number;
  readonly quantizer?: number;
  readonly keyFrame?: boolean;
  /** When the first and the last datagram of the frame reached the receiver (the last only once all of them did). */
  readonly firstArrivalMs?: number;
  readonly lastArrivalMs?: number;
  /** When this very frame was shown, and its SSIM (linear) against the source frame it was encoded from, if known. */
  readonly shownMs?: number;
  readonly ssim?: number;
  /** The display time d_i: when this frame or any later one was first shown (undefined if none was by the end). */
  readonly displayMs?: number;
  /** d_i - c_i; for a frame never caught up, the end of the run - c_i (a lower bound). */
  readonly signalDelayMs: number;
}

/** How much of a link a run used over a window of its clock: bytes departed and bytes of delivery opportunities. */
export interface LinkUse {
  readonly fromMs: number;
  readonly toMs: number;
  readonly departedBytes: number;
  readonly capacityBytes: number;
}

/** The source frames a summary covers: those captured in [fromMs, toMs) of the run's clock (window.ts). */
export interface MeasureWindow {
  /** Source frames captured at or after this time count (ms, the run's clock). */
  readonly fromMs: number;
  /** ... and before this one. */
  readonly toMs: number;
}

export interface RunRecord<Config extends object = object, Counters extends object = object> {
  /** What the run was, for tables (a scheme name; "(live)" for live runs). */
  readonly label: string;
  readonly config: Config;
  readonly counters: Counters;
  /** Bytes of every datagram the sender sent (headers included, not the link's per-datagram overhead). */
  readonly bytesSent: number;
  /** The video's link while frames were captured, when known. */
  readonly link: LinkUse | null;
  /** When the run ended: frames never caught up count their delay until then. */
  readonly endMs: number;
  /** The source frames the summary covers (window.ts); absent or null: all of them. The link use is over the same window. */
  readonly window?: MeasureWindow | null;
  readonly frames: readonly FrameRecord[];
}
