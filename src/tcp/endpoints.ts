// The two ends of a TCP flow over EndpointContext: the sending endpoint
// carries any number of connections (TcpSender) and hands each ACK to its
// connection; the receiving endpoint makes a TcpReceiver for each SYN it sees
// and hands it the connection's segments. Datagrams that are not segments
// are counted and dropped, as a host drops a malformed packet.
import type { EndpointContext } from '../net/endpoint.ts';
import { TcpReceiver, type TcpReceiverOptions } from './receiver.ts';
import { decodeSegment, FLAG_SYN, type Segment } from './segment.ts';
import { TcpSender, type TcpSenderOptions } from './sender.ts';

function decodeOrCount(bytes: Uint8Array, counter: { malformed: number }): Segment | undefined {
  try {
    return decodeSegment(bytes);
  } catch {
    counter.malformed++;
    return undefined;
  }
}

export class TcpSendingEndpoint {
  readonly connections = new Map<number, TcpSender>();
  readonly counters = { malformed: 0, unknownConnection: 0 };
  private nextConnection = 0;
  private closed = false;

  constructor(private readonly context: EndpointContext, private readonly options: TcpSenderOptions) {
    context.onReceive((bytes) => {
      if (this.closed) return;
      const segment = decodeOrCount(bytes, this.counters);
      if (segment === undefined) return;
      const sender = this.connections.get(segment.connection);
      if (sender === undefined) this.counters.unknownConnection++;
      else sender.receive(segment);
    });
  }

  /** Opens a new connection that sends `totalBytes` (Infinity: for ever). */
  open(totalBytes: number, onComplete?: (sender: TcpSender) => void): TcpSender {
    const sender = new TcpSender(this.nextConnection++, totalBytes, (bytes) => this.context.send(bytes), this.context, this.options, onComplete);
    this.connections.set(sender.connection, sender);
    sender.open();
    return sender;
  }

  close(): void {
    this.closed = true;
    for (const sender of this.connections.values()) sender.close();
  }
}

export class TcpReceivingEndpoint {
  readonly connections = new Map<number, TcpReceiver>();
  readonly counters = { malformed: 0, unknownConnection: 0 };
  private closed = false;

  constructor(private readonly context: EndpointContext, private readonly options: TcpReceiverOptions) {
    context.onReceive((bytes) => {
      if (this.closed) return;
      const segment = decodeOrCount(bytes, this.counters);
      if (segment === undefined) return;
      let receiver = this.connections.get(segment.connection);
      if (receiver === undefined) {
        if ((segment.flags & FLAG_SYN) === 0) {
          this.counters.unknownConnection++;
          return;
        }
        receiver = new TcpReceiver(segment.connection, (reply) => this.context.send(reply), this.context, this.options);
        this.connections.set(segment.connection, receiver);
      }
      receiver.receive(segment);
    });
  }

  close(): void {
    this.closed = true;
    for (const receiver of this.connections.values()) receiver.close();
  }
}
