// A small window-based congestion controller (additive increase, multiplicative
// decrease on loss), written only against EndpointContext, so the same code
// runs in the simulator and over real UDP sockets. Used by the examples.
import type { EndpointContext } from 'lowlat-video-toolkit/net';

const HEADER = 8; // sequence number (u32) + echoed send time in 0.1 ms units (u32)

export interface AimdStats {
  sent: number;
  acked: number;
  losses: number;
  window: number;
  rttMs: number[];
}

export class AimdSender {
  private window = 4;
  private inFlight = new Map<number, number>(); // sequence -> send time
  private nextSeq = 0;
  private highestAcked = -1;
  private lastDecrease = -Infinity;
  readonly stats: AimdStats = { sent: 0, acked: 0, losses: 0, window: 4, rttMs: [] };

  constructor(private readonly ctx: EndpointContext, private readonly payloadBytes = 1472) {
    ctx.onReceive((ack) => this.onAck(ack));
  }

  start(): void {
    this.fill();
  }

  private fill(): void {
    while (this.inFlight.size < Math.floor(this.window)) {
      const seq = this.nextSeq++;
      const datagram = new Uint8Array(this.payloadBytes);
      const view = new DataView(datagram.buffer);
      view.setUint32(0, seq);
      view.setUint32(4, Math.round(this.ctx.now() * 10) >>> 0);
      this.inFlight.set(seq, this.ctx.now());
      this.ctx.send(datagram);
      this.stats.sent++;
    }
  }

  private onAck(ack: Uint8Array): void {
    if (ack.length !== HEADER) return;
    const seq = new DataView(ack.buffer, ack.byteOffset).getUint32(0);
    const sentAt = this.inFlight.get(seq);
    if (sentAt === undefined) return;
    this.inFlight.delete(seq);
    this.stats.acked++;
    const rtt = this.ctx.now() - sentAt;
    this.stats.rttMs.push(rtt);
    // Anything sent before this packet and still unacknowledged three packets later is lost.
    for (const [s] of this.inFlight) {
      if (s >= seq - 3) break;
      this.inFlight.delete(s);
      this.stats.losses++;
      if (this.ctx.now() - this.lastDecrease > rtt) {
        this.window = Math.max(2, this.window / 2);
        this.lastDecrease = this.ctx.now();
      }
    }
    this.highestAcked = Math.max(this.highestAcked, seq);
    this.window += 1 / this.window;
    this.stats.window = this.window;
    this.fill();
  }
}

/** Acknowledges every datagram with its first 8 bytes. */
export function startAckingReceiver(ctx: EndpointContext): { received: () => number } {
  let received = 0;
  ctx.onReceive((datagram) => {
    if (datagram.length < HEADER) return;
    received++;
    ctx.send(datagram.slice(0, HEADER));
  });
  return { received: () => received };
}
