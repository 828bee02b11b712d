// The sending end of one modelled TCP connection: a two-way handshake (SYN,
// SYN-ACK; the data that follows acknowledges it), then `totalBytes` of data
// (Infinity: for ever) in segments of MSS bytes, clocked by the receiver's
// cumulative ACKs under a congestion control (newreno.ts, cubic.ts), with
//
// - loss recovery (loss-recovery.ts: fast retransmit and recovery, NewReno's
//   or, with `sack`, RFC 6675's, with PRR and RACK; what is resent in SACK
//   recovery: recovery-send.ts), which the sender drives from its ACKs and
//   timeout;
// - the retransmission timer of RFC 6298 (rto.ts): started when data is sent
//   and none is timing, restarted by an ACK of new data, stopped when all is
//   acknowledged; on expiry: back-off, ssthresh (held on a repeated timeout,
//   RFC 5681 3.1), cwnd = 1 MSS, and go-back-N from the first unacknowledged
//   byte (the receiver's cumulative ACK jumps over what it already holds);
// - Karn's rule: an RTT sample only from an ACK none of whose newly
//   acknowledged bytes was ever retransmitted (the SYN-ACK of a retransmitted
//   SYN gives none either);
// - restart after idle (RFC 5681 4.1): after a pause longer than the RTO with
//   nothing in flight, cwnd = min(cwnd, initial window).
//
// With `rackTlp` (the default with SACK), a tail loss probe (tlp.ts; PTO = 2
// SRTT, + 200 ms with one segment in flight; armed only while loss recovery
// is open, as Linux's tcp_schedule_loss_probe) sends a new or the last
// segment when the ACKs stop, so that a loss at the tail of a flight does not
// wait for the RTO. As Linux does with RACK, an ACK that newly SACKs data gives an
// RTT sample when it acknowledges nothing new cumulatively (the oldest such
// segment never retransmitted: sack_rtt_us), and retransmitting the first
// unacknowledged segment in recovery restarts the retransmission timer, as
// does an ACK that only SACKs data sent before that segment was last sent
// (Linux's tcp_clean_rtx_queue: the data queued ahead of a retransmission is
// still arriving, so the retransmission is not yet late; without it a
// retransmission behind a long queue timed out on the T-Mobile trace where
// Linux's did not). After a timeout the go-back-N skips SACKed segments,
// which do not count against cwnd.
//
// Not modelled: limited transmit, timestamps, pacing, PRR without SACK,
// ECN, the receiver's window growing (it is fixed and large), the closing
// handshake (FIN marks the last data segment; the connection is over when it
// is acknowledged).
import type { TimerHandle } from '../common/timer.ts';
import type { CongestionControl, TcpCcName } from './congestion-control.ts';
import { initialWindowBytes } from './congestion-control.ts';
import { Cubic } from './cubic.ts';
import { NewReno } from './newreno.ts';
import { RtoEstimator, type RtoOptions } from './rto.ts';
import type { SlowStartKind } from './slow-start.ts';
import { DEFAULT_MSS, encodeSegment, FLAG_ACK, FLAG_FIN, FLAG_SYN, type Segment } from './segment.ts';
import { SackScoreboard } from './sack-scoreboard.ts';
import { LossRecovery, type RecoveryConnection, type RecoveryState } from './loss-recovery.ts';
import { RackScoreboard } from './rack-scoreboard.ts';
import { probeTimeout, TailLossProbe } from './tlp.ts';
import { DeadlineTimer } from './deadline-timer.ts';

export interface TcpSenderOptions {
  readonly cc: TcpCcName;
  /** Payload bytes per segment (default 1448: one 1504-byte opportunity with the 24-byte header and 32 bytes of overhead). */
  readonly mss?: number;
  /** Initial window, segments (default 10). */
  readonly initialWindow?: number;
  /** RFC 3465 limit L of slow-start growth per ACK, in MSS (default 2). */
  readonly abcLimit?: number;
  /** Retransmission-timer bounds (default minimum 200 ms as Linux, see rto.ts). */
  readonly rto?: RtoOptions;
  /** Record cwnd and ssthresh after every change (stats().cwnd). */
  readonly recordCwnd?: boolean;
  /** Use the receiver's SACK blocks for loss recovery (RFC 6675; see above). Off here (NewReno recovery); the flows turn it on by default. */
  readonly sack?: boolean;
  /** Slow start: 'hystart-linux' (CUBIC's default: Linux's HyStart), 'standard' (NewReno's default: RFC 5681) or 'hystart++' (RFC 9406). */
  readonly slowStart?: SlowStartKind;
  /** Proportional Rate Reduction (RFC 6937) in SACK recovery (default true; false: cwnd = ssthresh throughout, RFC 6675). */
  readonly prr?: boolean;
  /** RACK-TLP (RFC 8985) loss detection and tail loss probes with SACK (default true; false: RFC 6675's DupThresh and IsLost, no probes). */
  readonly rackTlp?: boolean;
}

/** The clock and timers a connection runs on (an EndpointContext is one). */
export interface TcpClock {
  now(): number;
  setTimer(delayMs: number, callback: () => void): TimerHandle;
}

export interface CwndSample {
  readonly timeMs: number;
  readonly connection: number;
  readonly cwndBytes: number;
  readonly ssthreshBytes: number;
  /** In fast recovery (cwnd then includes the inflation by duplicate ACKs). */
  readonly recovery: boolean;
}

export interface TcpSenderStats {
  /** Payload bytes sent, retransmissions included. */
  bytesSent: number;
  /** Bytes cumulatively acknowledged. */
  bytesAcked: number;
  segmentsSent: number;
  /** Data segments sent again (fast retransmits, partial-ACK and timeout retransmissions, go-back-N). */
  retransmits: number;
  fastRetransmits: number;
  /** Expiries of the retransmission timer (with data or a SYN outstanding). */
  timeouts: number;
  /** Fast-recovery episodes ended by a full ACK. */
  recoveries: number;
  /** Tail loss probes sent (RFC 8985 7). */
  lossProbes: number;
}

function congestionControl(options: TcpSenderOptions, mss: number): CongestionControl {
  const ccOptions = { mss, initialWindow: options.initialWindow, abcLimit: options.abcLimit, slowStart: options.slowStart };
  switch (options.cc) {
    case 'newreno':
      return new NewReno(ccOptions);
    case 'cubic':
      return new Cubic(ccOptions);
    default:
      throw new RangeError(`tcp congestion control must be "newreno" or "cubic", got ${JSON.stringify(options.cc)}`);
  }
}

type Phase = 'idle' | 'syn-sent' | 'established' | 'done' | 'closed';

export class TcpSender {
  readonly mss: number;
  readonly cc: CongestionControl;
  readonly rto: RtoEstimator;
  readonly stats: TcpSenderStats = { bytesSent: 0, bytesAcked: 0, segmentsSent: 0, retransmits: 0, fastRetransmits: 0, timeouts: 0, recoveries: 0, lossProbes: 0 };
  readonly cwndLog: CwndSample[] = [];
  private phase: Phase = 'idle';
  private sndUna = 0;
  private sndNxt = 0;
  private sndMax = 0;
  private readonly initialWindow: number;
  private rwnd = Infinity;
  private lastWindow = -1;
  /** Send time of each data segment sent once and not yet acknowledged, by its first byte. */
  private readonly sendTimes = new Map<number, number>();
  /** End of the highest byte ever retransmitted (Karn's rule). */
  private retransmittedEnd = 0;
  private synSentAt = 0;
  private synRetransmitted = false;
  private lastSendMs: number | undefined = undefined;
  private readonly sack: boolean;
  /** SACKed ranges above sndUna, disjoint and in order. */
  private readonly scoreboard = new SackScoreboard();
  private readonly useRack: boolean;
  private readonly tlp = new TailLossProbe();
  /** RACK's per-segment record (with RACK-TLP). */
  private readonly board: RackScoreboard;
  /** The RTT of the oldest segment never retransmitted that the ACK being processed newly SACKed (Linux's sack_rtt). */
  private sackRttMs: number | undefined = undefined;
  private readonly recovery: LossRecovery;
  private readonly probeTimer: DeadlineTimer;
  /** The retransmission timer (RFC 6298), re-armed lazily on most ACKs. */
  private readonly rtoTimer: DeadlineTimer;
  private paused = false;

  constructor(
    readonly connection: number,
    private readonly totalBytes: number,
    private readonly send: (bytes: Uint8Array) => void,
    private readonly clock: TcpClock,
    private readonly options: TcpSenderOptions,
    private readonly onComplete?: (sender: TcpSender) => void,
  ) {
    this.mss = options.mss ?? DEFAULT_MSS;
    if (!Number.isInteger(this.mss) || this.mss < 1 || this.mss > 65535 - 24) throw new RangeError(`mss must be a whole number of bytes in [1, 65511], got ${this.mss}`);
    if (!(totalBytes > 0)) throw new RangeError(`a connection must carry at least one byte, got ${totalBytes}`);
    if (totalBytes !== Infinity && !Number.isInteger(totalBytes)) throw new RangeError(`totalBytes must be a whole number or Infinity, got ${totalBytes}`);
    this.cc = congestionControl(options, this.mss);
    this.sack = options.sack ?? false;
    this.useRack = this.sack && (options.rackTlp ?? true);
    this.board = new RackScoreboard(this.mss);
    const recoveryOptions = { mss: this.mss, sack: this.sack, rack: this.useRack, prr: options.prr ?? true };
    this.recovery = new LossRecovery(recoveryOptions, { cc: this.cc, board: this.board, scoreboard: this.scoreboard, stats: this.stats }, this.recoveryConnection(), clock);
    this.probeTimer = new DeadlineTimer(clock, () => this.onProbeTimer());
    this.rtoTimer = new DeadlineTimer(clock, () => this.onTimeout());
    this.rto = new RtoEstimator(options.rto);
    this.initialWindow = initialWindowBytes({ mss: this.mss, initialWindow: options.initialWindow });
  }

  /** Sends the SYN. */
  open(): void {
    if (this.phase !== 'idle') return;
    this.phase = 'syn-sent';
    this.sendSyn();
  }

  /** No new data until resume() (what is in flight is still recovered). */
  pause(): void {
    this.paused = true;
  }

  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    this.sendAvailable();
  }

  /** Stops for good: nothing more is sent and no timer stays pending. */
  close(): void {
    if (this.phase !== 'done') this.phase = 'closed';
    this.stopTimer();
    this.recovery.close();
    this.probeTimer.cancel();
  }

  isComplete(): boolean {
    return this.phase === 'done';
  }

  /** Bytes sent and not yet acknowledged. */
  flightBytes(): number {
    return this.sndMax - this.sndUna;
  }

  isInRecovery(): boolean {
    return this.recovery.inRecovery();
  }

  /** Loss recovery's state, as Linux names it (loss-recovery.ts). */
  recoveryState(): RecoveryState {
    return this.recovery.state();
  }

  /** A segment from the receiver. */
  receive(segment: Segment): void {
    if ((segment.flags & FLAG_ACK) === 0) return;
    if (this.phase === 'syn-sent') {
      if ((segment.flags & FLAG_SYN) !== 0) this.onSynAck(segment.window);
      return;
    }
    if (this.phase !== 'established' || (segment.flags & FLAG_SYN) !== 0) return;
    const ack = segment.ack;
    if (ack > this.sndMax) return; // acknowledges data never sent: not ours
    this.rwnd = segment.window;
    this.board.rack.beginAck();
    const oldUna = this.sndUna;
    const sackedBefore = this.scoreboard.bytesAbove(oldUna);
    if (this.sack && segment.sack !== undefined) this.addSackBlocks(segment.sack);
    const newUna = Math.max(ack, oldUna);
    this.recovery.onDelivered(newUna - oldUna + this.scoreboard.bytesAbove(newUna) - sackedBefore);
    const duplicate = ack === this.sndUna && this.sndMax > this.sndUna && segment.length === 0 && segment.window === this.lastWindow;
    if (this.useRack && this.tlp.onAck(ack, duplicate && (segment.sack?.length ?? 0) === 0)) this.reduceAfterProbe();
    if (ack > this.sndUna) this.onNewAck(ack);
    else {
      if (this.sackRttMs !== undefined) {
        this.rto.sample(this.sackRttMs, { sndUna: this.sndUna, sndNxt: this.sndNxt });
        if (this.sackedSentBeforeHead()) this.restartTimerOnSack();
      }
      if (duplicate) this.recovery.onDuplicateAck();
    }
    this.sackRttMs = undefined;
    this.recovery.onAckDone();
    this.lastWindow = segment.window;
  }

  /** The handshake is over: an RTT sample (unless the SYN was sent again), the receiver's window, and the first data. */
  private onSynAck(window: number): void {
    this.phase = 'established';
    this.stopTimer();
    if (this.synRetransmitted) this.rto.resetAfterSynTimeout();
    else {
      this.rto.sample(this.clock.now() - this.synSentAt);
      this.board.rack.onRttSample(this.clock.now() - this.synSentAt);
    }
    this.rwnd = window;
    this.lastWindow = window;
    this.record();
    this.sendAvailable();
  }

  /**
   * Whether the segment that gave this ACK's SACK RTT sample was sent before the first unacknowledged one was last
   * (re)sent (Linux's tcp_clean_rtx_queue: sack_rtt_us > the head's age). Such a SACK is of data queued ahead of the
   * head's retransmission, which is still on its way.
   */
  private sackedSentBeforeHead(): boolean {
    if (!this.useRack || this.sackRttMs === undefined) return false;
    const headSentAt = this.board.lastSentAt(this.sndUna);
    return headSentAt !== undefined && this.clock.now() - this.sackRttMs < headSentAt;
  }

  /**
   * An ACK that only SACKs data sent before the head was last sent re-arms the RTO, as Linux's tcp_set_xmit_timer
   * does outside the Open state (SACKed data: disorder, recovery or loss): no tail loss probe (tcp_schedule_loss_probe
   * declines, and a pending one goes: Linux's one timer holds the RTO now), and tcp_rearm_rto: one RTO from now, or
   * from the head's last send when the reordering or probe timer was pending (at least 1 us from now).
   */
  private restartTimerOnSack(): void {
    const fromHead = this.recovery.reorderTimerPending() || this.probeTimer.at() !== undefined;
    this.probeTimer.disarm();
    const headSentAt = this.board.lastSentAt(this.sndUna);
    if (!fromHead || headSentAt === undefined) this.startTimer(true);
    else this.rtoTimer.arm(Math.max(headSentAt + this.rto.rto(), this.clock.now() + 0.001));
  }

  /** An ACK of new data, up to `ack`. */
  private onNewAck(ack: number): void {
    const now = this.clock.now();
    const newlyAcked = ack - this.sndUna;
    const rttMs = this.sampleRtt(ack, now);
    this.forgetAcknowledged(ack, now);
    const { growWindow, restartTimer } = this.recovery.onNewAck(ack, newlyAcked);
    if (growWindow) {
      const srttMs = this.rto.srtt() ?? 0;
      this.cc.onAck(newlyAcked, now, srttMs, { sndUna: ack, sndNxt: this.sndNxt, rttMs, nowMs: now, srttMs });
    }
    this.recovery.afterNewAck();
    if (ack >= this.totalBytes) {
      this.complete();
      return;
    }
    if (this.sndUna === this.sndMax) this.stopTimer();
    else if (restartTimer) this.startTimer(true);
    this.record();
    this.sendAvailable();
    this.armProbe();
  }

  /** Samples the RTT of an ACK of new data up to `ack`: the newly acknowledged data's (Karn's rule), which it returns for the congestion control, else the ACK's SACK RTT. */
  private sampleRtt(ack: number, now: number): number | undefined {
    if (this.sndUna >= this.retransmittedEnd) {
      const sentAt = this.sendTimes.get(Math.floor((ack - 1) / this.mss) * this.mss);
      if (sentAt !== undefined) {
        const rttMs = now - sentAt;
        this.rto.sample(rttMs, { sndUna: ack, sndNxt: this.sndNxt });
        this.board.rack.onRttSample(rttMs);
        return rttMs;
      }
    }
    if (this.sackRttMs !== undefined) this.rto.sample(this.sackRttMs, { sndUna: ack, sndNxt: this.sndNxt });
    return undefined;
  }

  /** SND.UNA moves to `ack`: the segments below it are delivered (RACK) and forgotten. */
  private forgetAcknowledged(ack: number, now: number): void {
    const oldUna = this.sndUna;
    for (let seq = oldUna - (oldUna % this.mss); seq < ack; seq += this.mss) {
      this.sendTimes.delete(seq);
      if (this.useRack) this.board.onCumulativeAck(seq, Math.min(seq + this.mss, ack), now);
    }
    this.sndUna = ack;
    this.stats.bytesAcked = ack;
    this.scoreboard.trim(ack);
    if (this.sndNxt < ack) this.sndNxt = ack;
  }

  /** Every byte is acknowledged: the connection is over. */
  private complete(): void {
    this.phase = 'done';
    this.stopTimer();
    this.recovery.close();
    this.probeTimer.cancel();
    this.record();
    this.onComplete?.(this);
  }

  /**
   * Arms the tail loss probe (RFC 8985 7.2) if one may be sent: data in flight, recovery open (as Linux's
   * tcp_schedule_loss_probe: not in disorder, recovery or loss), no probe episode open, before the RTO.
   */
  private armProbe(): void {
    if (!this.useRack || this.phase !== 'established' || this.recovery.state() !== 'open' || this.sndUna === this.sndMax || !this.tlp.canArm() || this.rto.backoffCount() > 0) {
      this.probeTimer.disarm();
      return;
    }
    const now = this.clock.now();
    const rtoDeadline = this.rtoTimer.at();
    const rtoRemaining = rtoDeadline === undefined ? Infinity : rtoDeadline - now;
    const flightSegments = Math.ceil((this.sndMax - this.sndUna) / this.mss);
    const pto = probeTimeout(this.rto.srtt(), flightSegments, rtoRemaining);
    if (pto >= rtoRemaining) this.probeTimer.disarm();
    else this.probeTimer.arm(now + pto);
  }

  /** RFC 8985 7.3: a new segment if the receive window allows one, else the last segment again; then the RTO is re-armed. */
  private onProbeTimer(): void {
    if (this.phase !== 'established' || this.recovery.inRecovery() || this.sndUna === this.sndMax) return;
    this.stats.lossProbes++;
    const hasNew = !this.paused && this.sndNxt === this.sndMax && this.sndNxt < this.totalBytes;
    const length = hasNew ? Math.min(this.mss, this.totalBytes - this.sndNxt) : 0;
    if (hasNew && this.sndNxt + length <= this.sndUna + this.rwnd) {
      this.transmit(this.sndNxt, length);
      this.sndNxt += length;
      this.sndMax = this.sndNxt;
      this.tlp.onProbe(this.sndMax, false);
    } else {
      const last = Math.floor((this.sndMax - 1) / this.mss) * this.mss;
      this.retransmit(last);
      this.tlp.onProbe(this.sndMax, true);
    }
    this.startTimer(true);
  }

  /** The retransmitted probe alone repaired a loss (RFC 8985 7.4.2): the congestion control reduces, cwnd = ssthresh. */
  private reduceAfterProbe(): void {
    if (this.recovery.inRecovery()) return;
    this.cc.onCongestion(this.clock.now(), this.sndMax - this.sndUna);
    this.cc.cwnd = this.cc.ssthresh;
    this.record();
  }

  private onTimeout(): void {
    if (this.phase === 'syn-sent') {
      this.stats.timeouts++;
      this.rto.backOff();
      this.synRetransmitted = true;
      this.sendSyn();
      return;
    }
    if (this.phase !== 'established' || this.sndUna === this.sndMax) return;
    this.stats.timeouts++;
    if (this.rto.backoffCount() === 0) this.cc.onTimeout(this.clock.now(), this.sndMax - this.sndUna);
    else this.cc.cwnd = this.mss;
    this.rto.backOff();
    this.recovery.onTimeout(this.sndMax);
    this.sndNxt = this.sndUna;
    this.tlp.reset();
    this.probeTimer.disarm();
    this.record();
    this.sendAvailable();
  }

  /** Sends what the window and the application allow. */
  private sendAvailable(): void {
    if (this.phase !== 'established' || this.paused) return;
    const now = this.clock.now();
    if (this.sndUna === this.sndMax && this.lastSendMs !== undefined && now - this.lastSendMs > this.rto.rto() && this.cc.cwnd > this.initialWindow) {
      this.cc.cwnd = this.initialWindow;
      this.record();
    }
    if (this.recovery.sendInRecovery()) return;
    const sentBefore = this.sndMax;
    for (;;) {
      if (this.sndNxt >= this.totalBytes) break;
      const length = Math.min(this.mss, this.totalBytes - this.sndNxt);
      if (this.sndNxt < this.sndMax && this.board.isSacked(this.sndNxt)) {
        this.sndNxt += length; // after a timeout with RACK-TLP: what was SACKed is not sent again
        continue;
      }
      const window = Math.min(this.cc.cwnd, this.rwnd);
      const sackedBelow = this.board.sackedCount() > 0 ? this.scoreboard.bytesAbove(this.sndUna) - this.scoreboard.bytesAbove(this.sndNxt) : 0;
      if (this.sndNxt + length - sackedBelow > this.sndUna + window) break;
      this.transmit(this.sndNxt, length);
      this.sndNxt += length;
      if (this.sndNxt > this.sndMax) this.sndMax = this.sndNxt;
    }
    if (this.sndMax > sentBefore) this.armProbe();
  }

  private addSackBlocks(blocks: ReadonlyArray<readonly [number, number]>): void {
    for (const [rawStart, rawEnd] of blocks) {
      const start = Math.max(rawStart, this.sndUna);
      const end = Math.min(rawEnd, this.sndMax);
      if (end <= start) continue;
      this.scoreboard.add(start, end);
      if (this.useRack) this.markSacked(start, end);
    }
  }

  /** RACK: the whole segments in [start, end) newly SACKed are delivered; the oldest never retransmitted gives Linux's sack_rtt. */
  private markSacked(start: number, end: number): void {
    const now = this.clock.now();
    for (const seq of this.board.onSackBlock(start, end, this.sndMax, now)) {
      const sentAt = this.sendTimes.get(seq);
      if (sentAt !== undefined && (this.sackRttMs === undefined || now - sentAt > this.sackRttMs)) this.sackRttMs = now - sentAt;
    }
  }

  /** Sends the segment starting at `seq` again; its length. */
  private retransmit(seq: number): number {
    const length = Math.min(this.mss, this.totalBytes - seq);
    this.transmit(seq, length);
    return length;
  }

  /** Sends the next new segment if there is one and the receive window takes it (the congestion window is the caller's); its length, 0 if none was sent. */
  private sendNewSegment(): number {
    if (this.sndNxt >= this.totalBytes) return 0;
    const length = Math.min(this.mss, this.totalBytes - this.sndNxt);
    if (this.sndNxt + length > this.sndUna + this.rwnd) return 0;
    this.transmit(this.sndNxt, length);
    this.sndNxt += length;
    if (this.sndNxt > this.sndMax) this.sndMax = this.sndNxt;
    return length;
  }

  /** Loss recovery's view of this connection (loss-recovery.ts). */
  private recoveryConnection(): RecoveryConnection {
    return {
      sndUna: () => this.sndUna,
      sndMax: () => this.sndMax,
      srtt: () => this.rto.srtt(),
      isEstablished: () => this.phase === 'established',
      retransmit: (seq) => this.retransmit(seq),
      sendNewSegment: () => this.sendNewSegment(),
      record: () => this.record(),
      sendAvailable: () => this.sendAvailable(),
      onRecoveryStart: () => {
        this.tlp.reset();
        this.probeTimer.disarm();
      },
    };
  }

  private transmit(seq: number, length: number): void {
    const now = this.clock.now();
    const end = seq + length;
    if (seq < this.sndMax) {
      this.stats.retransmits++;
      if (end > this.retransmittedEnd) this.retransmittedEnd = end;
      this.sendTimes.delete(seq);
      if (this.useRack && this.recovery.inRecovery() && seq === this.sndUna) this.startTimer(true);
    } else {
      this.sendTimes.set(seq, now);
    }
    if (this.useRack) this.board.onSend(seq, now, seq < this.sndMax);
    this.stats.bytesSent += length;
    this.stats.segmentsSent++;
    this.recovery.onSend(length);
    this.lastSendMs = now;
    this.send(encodeSegment({ flags: end === this.totalBytes ? FLAG_FIN : 0, connection: this.connection, seq, ack: 0, window: 0, length }));
    this.startTimer(false);
  }

  private sendSyn(): void {
    this.synSentAt = this.clock.now();
    this.send(encodeSegment({ flags: FLAG_SYN, connection: this.connection, seq: 0, ack: 0, window: 0, length: 0 }));
    this.startTimer(true);
  }

  /** (Re)starts the retransmission timer for one RTO from now (without `restart`, only if it is not running). */
  private startTimer(restart: boolean): void {
    if (!restart && this.rtoTimer.at() !== undefined) return;
    this.rtoTimer.arm(this.clock.now() + this.rto.rto());
  }

  /** Stops the retransmission timer; once the connection is over, nothing stays scheduled. */
  private stopTimer(): void {
    if (this.phase === 'done' || this.phase === 'closed') this.rtoTimer.cancel();
    else this.rtoTimer.disarm();
  }

  private record(): void {
    if (!this.options.recordCwnd) return;
    this.cwndLog.push({ timeMs: this.clock.now(), connection: this.connection, cwndBytes: this.cc.cwnd, ssthreshBytes: this.cc.ssthresh, recovery: this.recovery.inRecovery() });
  }
}
