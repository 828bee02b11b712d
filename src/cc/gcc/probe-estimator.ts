// The rate a bandwidth probe measured, as libwebrtc's ProbeBitrateEstimator
// (goog_cc/probe_bitrate_estimator.cc) computes it from the transport
// feedback of a probe cluster's packets:
//   send rate    = (bytes - the last sent packet's) / (last send - first send)
//   receive rate = (bytes - the first received packet's) / (last arrival - first arrival)
// once at least 80 % of the cluster's packets and bytes were received, both
// intervals are positive and at most 1 s, and the receive rate is at most
// twice the send rate; the result is min(send, receive), or 95 % of the
// receive rate when that is below 90 % of the send rate (the probe filled
// the link: what arrived is the capacity). Pure: packets in, a rate out.

export interface ProbeCluster {
  readonly id: number;
  readonly bitrate: number;
  readonly minPackets: number;
  readonly minBytes: number;
}

interface ClusterFeedback {
  firstSendMs: number;
  lastSendMs: number;
  lastSendBytes: number;
  firstArrivalMs: number;
  lastArrivalMs: number;
  firstArrivalBytes: number;
  packets: number;
  bytes: number;
}

export const PROBE_ESTIMATOR_LIMITS = { minReceivedRatio: 0.8, maxIntervalMs: 1000, maxValidRatio: 2, minRatioForUnsaturated: 0.9, targetUtilisation: 0.95 } as const;

export class ProbeBitrateEstimator {
  private readonly clusters = new Map<number, ClusterFeedback>();
  private latest: number | undefined;

  /** A received packet of `cluster`; returns the cluster's estimate now, if it has one. */
  add(cluster: ProbeCluster, sendMs: number, arrivalMs: number, bytes: number): number | undefined {
    let c = this.clusters.get(cluster.id);
    if (c === undefined) {
      c = { firstSendMs: sendMs, lastSendMs: sendMs, lastSendBytes: bytes, firstArrivalMs: arrivalMs, lastArrivalMs: arrivalMs, firstArrivalBytes: bytes, packets: 0, bytes: 0 };
      this.clusters.set(cluster.id, c);
    }
    if (sendMs < c.firstSendMs) c.firstSendMs = sendMs;
    if (sendMs >= c.lastSendMs) {
      c.lastSendMs = sendMs;
      c.lastSendBytes = bytes;
    }
    if (arrivalMs < c.firstArrivalMs) {
      c.firstArrivalMs = arrivalMs;
      c.firstArrivalBytes = bytes;
    }
    if (arrivalMs > c.lastArrivalMs) c.lastArrivalMs = arrivalMs;
    c.packets++;
    c.bytes += bytes;
    const L = PROBE_ESTIMATOR_LIMITS;
    if (c.packets < L.minReceivedRatio * cluster.minPackets || c.bytes < L.minReceivedRatio * cluster.minBytes) return undefined;
    const sendInterval = c.lastSendMs - c.firstSendMs;
    const receiveInterval = c.lastArrivalMs - c.firstArrivalMs;
    if (!(sendInterval > 0 && sendInterval <= L.maxIntervalMs && receiveInterval > 0 && receiveInterval <= L.maxIntervalMs)) return undefined;
    const sendRate = ((c.bytes - c.lastSendBytes) * 8000) / sendInterval;
    const receiveRate = ((c.bytes - c.firstArrivalBytes) * 8000) / receiveInterval;
    if (receiveRate > L.maxValidRatio * sendRate) return undefined;
    const rate = receiveRate < L.minRatioForUnsaturated * sendRate ? L.targetUtilisation * receiveRate : Math.min(sendRate, receiveRate);
    this.latest = rate;
    return rate;
  }

  /** The latest estimate since the last call, once. */
  fetchAndReset(): number | undefined {
    const r = this.latest;
    this.latest = undefined;
    return r;
  }
}
