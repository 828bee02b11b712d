// Loss recovery of one TCP sender: when it decides that data was lost, how
// its window falls, what it resends, and when recovery is over. A state
// machine with the names Linux gives its states (tcp_ca_state):
//
// - open: nothing amiss;
// - disorder: duplicate ACKs or SACKed data, no loss found yet;
// - recovery: fast recovery, from the loss found (the third duplicate ACK,
//   DupThresh; with RACK-TLP its first lost segment) until the ACK of
//   `recover`, the highest byte sent when it began (RFC 6582);
// - loss: after a retransmission timeout, until all that was sent before it
//   is acknowledged; no fast recovery meanwhile (RFC 6582 4).
//
// Without `sack`: fast retransmit on the third duplicate ACK (RFC 5681 3.2)
// and NewReno's fast recovery (RFC 6582 3.2): ssthresh from the congestion
// control, cwnd = ssthresh + 3 MSS, +1 MSS per further duplicate ACK; a
// partial ACK retransmits the next hole, deflates cwnd by the bytes it
// acknowledges and adds one MSS back if those were at least one MSS, and
// (first partial ACK only, the "impatient" variant) restarts the timer; the
// full ACK ends recovery with cwnd = min(ssthresh, max(FlightSize, MSS) +
// MSS) (RFC 6582 3.2 step 3, option 1).
//
// With `sack`, RFC 6675's recovery, simplified: cwnd = ssthresh for the whole
// of recovery (no inflation); each ACK sends what recovery-send.ts selects;
// every ACK of new data restarts the timer. With `prr` (the default with
// SACK), cwnd in recovery is Proportional Rate Reduction's (RFC 6937,
// prr.ts, PRR-SSRB as Linux runs it): on each ACK, cwnd = pipe + sndcnt from
// the data the ACK delivered (newly acknowledged or SACKed), so the window
// comes down to ssthresh over the round trip instead of falling silent for
// half of it; at the end of recovery cwnd = ssthresh.
//
// With `rack` (RACK-TLP, the default with SACK), losses are found as RFC
// 8985 does (rack.ts, rack-scoreboard.ts), not by counting duplicate ACKs: a
// segment is lost once one sent after it has been delivered and RACK.rtt +
// reo_wnd has passed since it was sent (a reordering timer waits out the
// rest); the first such loss starts recovery, in which the lost segments are
// retransmitted, lowest first, and a retransmission lost again is found
// again.
//
// A timeout ends recovery and starts loss: without RACK-TLP the SACK
// scoreboard is dropped (RFC 2018 8); with it the scoreboard is kept and
// only the marks of lost segments go (RFC 8985 6.3 marks lost what is not
// SACKed; Linux's tcp_timeout_mark_lost does the same).
//
// The sender keeps the connection's bookkeeping (sequence numbers, the
// scoreboards, the timers, the tail loss probe) and drives recovery through
// the RecoveryConnection it gives it.
import type { CongestionControl } from './congestion-control.ts';
import { DeadlineTimer, type DeadlineClock } from './deadline-timer.ts';
import { ProportionalRateReduction } from './prr.ts';
import type { RackScoreboard } from './rack-scoreboard.ts';
import { RecoverySendSelection, type RecoverySendPort } from './recovery-send.ts';
import type { SackScoreboard } from './sack-scoreboard.ts';

export type RecoveryState = 'open' | 'disorder' | 'recovery' | 'loss';

/** What loss recovery reads of the connection and asks it to do. */
export interface RecoveryConnection extends RecoverySendPort {
  srtt(): number | undefined;
  isEstablished(): boolean;
  /** Records cwnd after a change. */
  record(): void;
  /** Sends what the window allows (in SACK recovery, through sendInRecovery()). */
  sendAvailable(): void;
  /** Recovery began: no tail loss probe while it lasts. */
  onRecoveryStart(): void;
}

export interface LossRecoveryOptions {
  readonly mss: number;
  readonly sack: boolean;
  readonly rack: boolean;
  readonly prr: boolean;
}

/** The connection's parts recovery reads and changes: its congestion control, scoreboards and counters. */
export interface LossRecoveryParts {
  readonly cc: CongestionControl;
  readonly board: RackScoreboard;
  readonly scoreboard: SackScoreboard;
  readonly stats: { fastRetransmits: number; recoveries: number };
}

export class LossRecovery {
  private recovering = false;
  /** RFC 6582's recover, as the byte after it (the highest sequence number sent, + 1). */
  private recoverPoint = 0;
  private dupAcks = 0;
  private partialAckSeen = false;
  /** PRR's state during a SACK recovery. */
  private prr: ProportionalRateReduction | undefined = undefined;
  /** Bytes the ACK being processed newly acknowledged or SACKed (RFC 6937 DeliveredData). */
  private deliveredNow = 0;
  private readonly reorderTimer: DeadlineTimer;
  private readonly selection: RecoverySendSelection;

  constructor(
    private readonly options: LossRecoveryOptions,
    private readonly parts: LossRecoveryParts,
    private readonly connection: RecoveryConnection,
    private readonly clock: DeadlineClock,
  ) {
    this.reorderTimer = new DeadlineTimer(clock, () => this.onReorderTimer());
    this.selection = new RecoverySendSelection(options.mss, options.rack, parts.board, parts.scoreboard);
  }

  state(): RecoveryState {
    if (this.recovering) return 'recovery';
    if (this.connection.sndUna() < this.recoverPoint) return 'loss';
    if (this.dupAcks > 0 || this.parts.scoreboard.bytesAbove(this.connection.sndUna()) > 0) return 'disorder';
    return 'open';
  }

  inRecovery(): boolean {
    return this.recovering;
  }

  /** RACK's reordering timer is waiting for a segment to be deemed lost. */
  reorderTimerPending(): boolean {
    return this.reorderTimer.at() !== undefined;
  }

  /** The ACK being processed delivered `bytes` (newly acknowledged or SACKed); PRR counts them when the ACK sends. */
  onDelivered(bytes: number): void {
    this.deliveredNow = bytes;
  }

  /** The ACK has been processed. */
  onAckDone(): void {
    this.deliveredNow = 0;
  }

  /** A segment of `bytes` sent (new or again). */
  onSend(bytes: number): void {
    this.prr?.onSend(bytes);
  }

  onDuplicateAck(): void {
    this.dupAcks++;
    if (this.options.rack) {
      if (this.detectLosses() && !this.recovering) this.enter();
      else if (this.recovering) this.sendOn();
      return;
    }
    if (this.recovering) {
      if (!this.options.sack) this.parts.cc.cwnd += this.options.mss;
      this.sendOn();
      return;
    }
    if (this.dupAcks === 3) this.enter();
  }

  /**
   * An ACK of new data, up to `ack` (SND.UNA already moved there): in recovery a partial ACK or the full one.
   * `growWindow`: the congestion control grows the window (outside recovery); `restartTimer`: the retransmission
   * timer restarts (not on a partial ACK after the first, without SACK).
   */
  onNewAck(ack: number, newlyAcked: number): { growWindow: boolean; restartTimer: boolean } {
    if (!this.recovering) {
      this.dupAcks = 0;
      return { growWindow: true, restartTimer: true };
    }
    if (ack >= this.recoverPoint) this.exit(ack);
    else if (!this.options.sack) return { growWindow: false, restartTimer: this.onPartialAck(ack, newlyAcked) };
    // with SACK (RFC 6675), no deflation: the ACK frees pipe, which the sender fills
    return { growWindow: false, restartTimer: true };
  }

  /** After an ACK of new data: RACK may find losses, and the first starts recovery. */
  afterNewAck(): void {
    if (this.options.rack && this.detectLosses() && !this.recovering) this.enter();
  }

  /** In SACK recovery, sends what recovery sends (true); false outside it, where the sender sends as usual. */
  sendInRecovery(): boolean {
    if (!this.options.sack || !this.recovering) return false;
    const { cc } = this.parts;
    const pipe = this.selection.pipe(this.connection.sndUna(), this.connection.sndMax());
    if (this.prr !== undefined) {
      cc.cwnd = this.prr.onAck(this.deliveredNow, pipe);
      this.deliveredNow = 0;
      this.connection.record();
    }
    this.selection.send(this.connection, pipe, cc.cwnd);
    return true;
  }

  /** The retransmission timer expired with data outstanding (`sndMax` the highest byte sent, + 1): recovery ends, loss begins. */
  onTimeout(sndMax: number): void {
    this.recoverPoint = sndMax;
    this.recovering = false;
    this.prr = undefined;
    this.dupAcks = 0;
    if (!this.options.rack) this.parts.scoreboard.clear();
    this.parts.board.onTimeout(!this.options.rack);
    this.reorderTimer.disarm();
    this.selection.reset();
  }

  /** The connection is over: nothing stays scheduled. */
  close(): void {
    this.reorderTimer.cancel();
  }

  /** Fast retransmit and the start of recovery (DupThresh, or RACK's first loss). Not in loss (RFC 6582 4). */
  private enter(): void {
    if (this.state() === 'loss') return;
    const { cc, board, stats } = this.parts;
    const { mss, sack, rack } = this.options;
    const sndUna = this.connection.sndUna();
    const sndMax = this.connection.sndMax();
    cc.onCongestion(this.clock.now(), sndMax - sndUna);
    this.recoverPoint = sndMax;
    this.recovering = true;
    this.partialAckSeen = false;
    this.connection.onRecoveryStart();
    if (sack && this.options.prr) this.prr = new ProportionalRateReduction(cc.ssthresh, sndMax - sndUna, mss);
    stats.fastRetransmits++;
    const first = rack ? board.lowestLost() ?? sndUna : sndUna;
    this.selection.reset();
    this.connection.retransmit(first);
    this.selection.onFastRetransmit(first);
    cc.cwnd = sack ? cc.ssthresh : cc.ssthresh + 3 * mss;
    this.sendOn();
  }

  /** The full ACK: recovery is over. */
  private exit(ack: number): void {
    const { cc } = this.parts;
    const { mss } = this.options;
    cc.cwnd = this.prr !== undefined ? cc.ssthresh : Math.min(cc.ssthresh, Math.max(this.connection.sndMax() - ack, mss) + mss);
    this.prr = undefined;
    this.recovering = false;
    this.dupAcks = 0;
    this.parts.stats.recoveries++;
    this.selection.reset();
  }

  /** NewReno's partial ACK (RFC 6582 3.2 step 3): retransmits the next hole and deflates cwnd; whether the timer restarts (the first partial ACK only). */
  private onPartialAck(ack: number, newlyAcked: number): boolean {
    const { cc } = this.parts;
    const { mss } = this.options;
    this.connection.retransmit(ack);
    cc.cwnd = Math.max(mss, cc.cwnd - newlyAcked + (newlyAcked >= mss ? mss : 0));
    const restart = !this.partialAckSeen;
    this.partialAckSeen = true;
    return restart;
  }

  /** Records the window and sends what it allows. */
  private sendOn(): void {
    this.connection.record();
    this.connection.sendAvailable();
  }

  /** RACK (RFC 8985 6.2 step 5): marks the segments now deemed lost and sets the reordering timer for the next; true if any was marked. */
  private detectLosses(): boolean {
    const now = this.clock.now();
    const { board } = this.parts;
    const reoWnd = board.rack.reorderingWindow(this.recovering, board.sackedCount(), this.connection.srtt() ?? 0);
    const { marked, nextMs } = board.detectLosses(this.connection.sndUna(), this.connection.sndMax(), now, reoWnd);
    if (nextMs === Infinity) this.reorderTimer.disarm();
    else this.reorderTimer.arm(now + nextMs);
    return marked;
  }

  private onReorderTimer(): void {
    if (!this.connection.isEstablished() || !this.detectLosses()) return;
    if (!this.recovering) this.enter();
    else this.sendOn();
  }
}
