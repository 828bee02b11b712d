// The throughput of one long-lived TCP flow under random loss, from Mathis,
// Semke, Mahdavi and Ott (1997): MSS / RTT * C / sqrt(p). C = sqrt(3/2) for
// a window that grows by one MSS per round trip and halves on each loss (the
// model's NewReno does, delayed ACKs or not, because it counts bytes); with
// one MSS per two segments acked (no byte counting) it would be sqrt(3/4).
export const MATHIS_C = Math.sqrt(3 / 2);

/** bit/s */
export function mathisThroughput(mssBytes: number, rttMs: number, lossRate: number, c = MATHIS_C): number {
  if (!(lossRate > 0 && lossRate < 1)) throw new RangeError(`loss rate must be in (0, 1), got ${lossRate}`);
  if (!(rttMs > 0)) throw new RangeError(`rtt must be > 0 ms, got ${rttMs}`);
  return ((mssBytes * 8) / (rttMs / 1000)) * (c / Math.sqrt(lossRate));
}
