// When libwebrtc's goog_cc probes, and how its pacer sends a probe
// (goog_cc/probe_controller.cc, pacing/bitrate_prober.cc), for a sender
// that always has media to send:
// - at the start, two clusters at 3x and 6x the initial bitrate;
// - when a cluster's result exceeds 70 % of the highest rate probed, a
//   further cluster at 2x that result (exponential probing), while the
//   result came within 1 s of the probe; capped at the maximum bitrate;
// - a cluster is sent at its rate until it has sent at least 5 packets and
//   15 ms of its rate in bytes; clusters follow each other at once.
// Periodic probing in ALR is off by default for video in libwebrtc (it is
// screenshare's), and is not modelled (alr.ts finds the region itself), nor
// are the probes after a large drop or on a network change.
// Pure: packets sent and probe results in, the pacing rate and each packet's
// cluster out.
import type { ProbeCluster } from './probe-estimator.ts';

export const PROBE_DEFAULTS = {
  firstScale: 3, secondScale: 6, furtherScale: 2, furtherMinRatio: 0.7, resultTimeoutMs: 1000, minPackets: 5, minDurationMs: 15,
} as const;

interface ActiveCluster extends ProbeCluster {
  sentPackets: number;
  sentBytes: number;
}

export class ProbeController {
  private readonly pending: ActiveCluster[] = [];
  private readonly bySequence = new Map<number, ProbeCluster>();
  private nextId = 0;
  private started = false;
  private highestProbed = 0;
  private lastProbeMs = -Infinity;
  private exponential = false;

  constructor(private readonly limits: { readonly initialBitrate: number; readonly maxBitrate: number }) {}

  /** The rate the pacer sends at now: the active cluster's, or undefined (the target). */
  pacingBitrate(): number | undefined {
    return this.pending[0]?.bitrate;
  }

  /** A packet left the sender at `nowMs`; returns its cluster if it belongs to one. */
  onPacketSent(sequence: number, sizeBytes: number, nowMs: number): ProbeCluster | undefined {
    if (!this.started) {
      this.started = true;
      this.exponential = true;
      this.probe([PROBE_DEFAULTS.firstScale * this.limits.initialBitrate, PROBE_DEFAULTS.secondScale * this.limits.initialBitrate], nowMs);
    }
    const c = this.pending[0];
    if (c === undefined) return undefined;
    c.sentPackets++;
    c.sentBytes += sizeBytes;
    this.bySequence.set(sequence, c);
    if (c.sentPackets >= c.minPackets && c.sentBytes >= c.minBytes) this.pending.shift();
    return c;
  }

  /** The cluster a reported packet belonged to (forgotten once asked). */
  clusterOf(sequence: number): ProbeCluster | undefined {
    const c = this.bySequence.get(sequence);
    if (c !== undefined) this.bySequence.delete(sequence);
    return c;
  }

  /**
   * The estimate after a feedback at `nowMs` (libwebrtc's SetEstimatedBitrate):
   * while waiting for a probe's result (1 s), an estimate above 70 % of the
   * highest rate probed starts a further probe at twice the estimate.
   */
  onEstimate(bitrate: number, nowMs: number): void {
    if (!this.exponential) return;
    if (nowMs - this.lastProbeMs > PROBE_DEFAULTS.resultTimeoutMs) {
      this.exponential = false;
      return;
    }
    if (bitrate > PROBE_DEFAULTS.furtherMinRatio * this.highestProbed && this.highestProbed < this.limits.maxBitrate) {
      this.probe([PROBE_DEFAULTS.furtherScale * bitrate], nowMs);
    }
  }

  private probe(rates: readonly number[], nowMs: number): void {
    for (const r of rates) {
      const bitrate = Math.min(r, this.limits.maxBitrate);
      const minBytes = (bitrate / 8) * (PROBE_DEFAULTS.minDurationMs / 1000);
      this.pending.push({ id: this.nextId++, bitrate, minPackets: PROBE_DEFAULTS.minPackets, minBytes, sentPackets: 0, sentBytes: 0 });
      this.highestProbed = Math.max(this.highestProbed, bitrate);
    }
    this.lastProbeMs = nowMs;
  }
}
