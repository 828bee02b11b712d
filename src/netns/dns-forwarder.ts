// The DNS server at $MAHIMAHI_BASE inside linkshell --netns: the namespace's
// resolv.conf names it, so every lookup of COMMAND crosses the emulated link
// (as in Mahimahi) and is answered here from the host's resolver (getaddrinfo:
// /etc/hosts, then the host's DNS). Deterministic and fast: each question
// (name and type) is resolved once per run and answered the same way from
// then on, a lookup that takes longer than LOOKUP_TIMEOUT_MS is answered
// SERVFAIL at once (instead of the multi-second waits of a namespace whose
// resolv.conf points at an unreachable 127.0.0.53), and questions it does not
// handle (types other than A and AAAA, other classes, opcodes) get NOTIMP at
// once rather than silence. IPv4 UDP only; no recursion of its own.

import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { lookup } from 'node:dns/promises';

export const DNS_PORT = 53;
export const LOOKUP_TIMEOUT_MS = 3000;
/** Seconds the answers may be cached for. */
const ANSWER_TTL_S = 60;

const TYPE_A = 1;
const TYPE_AAAA = 28;
const CLASS_IN = 1;

export enum Rcode {
  NoError = 0,
  FormErr = 1,
  ServFail = 2,
  NxDomain = 3,
  NotImp = 4,
}

/** What a lookup gives: addresses (possibly none: the name exists without this type) or a failure code. */
export type Resolution = { rcode: Rcode.NoError; addresses: string[] } | { rcode: Rcode.NxDomain | Rcode.ServFail };

export type Resolver = (name: string, family: 4 | 6) => Promise<Resolution>;

/** The host's resolver (getaddrinfo), bounded in time. */
export const hostResolver: Resolver = async (name, family) => {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Resolution>((resolve) => {
    timer = setTimeout(() => resolve({ rcode: Rcode.ServFail }), LOOKUP_TIMEOUT_MS);
  });
  const answer = lookup(name, { all: true, family, verbatim: true }).then(
    (found): Resolution => ({ rcode: Rcode.NoError, addresses: found.map((a) => a.address) }),
    (error: NodeJS.ErrnoException): Resolution =>
      error.code === 'ENOTFOUND' ? { rcode: Rcode.NxDomain } : error.code === 'ENODATA' ? { rcode: Rcode.NoError, addresses: [] } : { rcode: Rcode.ServFail },
  );
  try {
    return await Promise.race([answer, timeout]);
  } finally {
    clearTimeout(timer);
  }
};

export interface Question {
  id: number;
  flags: number;
  name: string;
  type: number;
  klass: number;
  /** The question section as received (copied into the answer). */
  section: Uint8Array;
}

/** The one question of a DNS query, or the rcode to answer a malformed or unsupported one with (undefined: not a query at all, ignore it). */
export function parseQuery(message: Uint8Array): Question | { id: number; flags: number; rcode: Rcode } | undefined {
  if (message.length < 12) return undefined;
  const view = new DataView(message.buffer, message.byteOffset, message.byteLength);
  const id = view.getUint16(0);
  const flags = view.getUint16(2);
  if (flags & 0x8000) return undefined; // a response, not a query
  if (((flags >> 11) & 15) !== 0) return { id, flags, rcode: Rcode.NotImp };
  if (view.getUint16(4) !== 1) return { id, flags, rcode: Rcode.FormErr };
  const labels: string[] = [];
  let at = 12;
  let length = 0;
  for (;;) {
    if (at >= message.length) return { id, flags, rcode: Rcode.FormErr };
    const size = message[at];
    if (size === 0) break;
    if (size > 63 || at + 1 + size > message.length) return { id, flags, rcode: Rcode.FormErr };
    length += size + 1;
    if (length > 255) return { id, flags, rcode: Rcode.FormErr };
    labels.push(Buffer.from(message.subarray(at + 1, at + 1 + size)).toString('latin1'));
    at += 1 + size;
  }
  at += 1;
  if (at + 4 > message.length) return { id, flags, rcode: Rcode.FormErr };
  return { id, flags, name: labels.join('.'), type: view.getUint16(at), klass: view.getUint16(at + 2), section: message.subarray(12, at + 4) };
}

/** The response: the question echoed, `addresses` as answers (A or AAAA by the question's type). */
export function buildResponse(id: number, queryFlags: number, rcode: Rcode, question?: Uint8Array, type?: number, addresses: readonly string[] = []): Buffer {
  const answers = addresses.map((address) => encodeAddress(address, type!));
  const size = 12 + (question?.length ?? 0) + answers.reduce((sum, rdata) => sum + 12 + rdata.length, 0);
  const out = Buffer.alloc(size);
  out.writeUInt16BE(id, 0);
  // QR, the query's opcode and RD, RA, the rcode.
  out.writeUInt16BE(0x8000 | (queryFlags & 0x7900) | 0x0080 | rcode, 2);
  out.writeUInt16BE(question ? 1 : 0, 4);
  out.writeUInt16BE(answers.length, 6);
  let at = 12;
  if (question) {
    out.set(question, at);
    at += question.length;
  }
  for (const rdata of answers) {
    out.writeUInt16BE(0xc00c, at); // the name: a pointer to the question's
    out.writeUInt16BE(type!, at + 2);
    out.writeUInt16BE(CLASS_IN, at + 4);
    out.writeUInt32BE(ANSWER_TTL_S, at + 6);
    out.writeUInt16BE(rdata.length, at + 10);
    out.set(rdata, at + 12);
    at += 12 + rdata.length;
  }
  return out;
}

function encodeAddress(address: string, type: number): Uint8Array {
  if (type === TYPE_A) return Uint8Array.from(address.split('.').map(Number));
  const [head, tail = ''] = address.split('::');
  const words = (s: string) => (s === '' ? [] : s.split(':').map((w) => parseInt(w, 16)));
  const front = words(head);
  const back = address.includes('::') ? words(tail) : [];
  const all = address.includes('::') ? [...front, ...new Array(8 - front.length - back.length).fill(0), ...back] : front;
  const out = Buffer.alloc(16);
  all.forEach((w, i) => out.writeUInt16BE(w, 2 * i));
  return out;
}

export interface DnsForwarderStats {
  queries: number;
  answered: number;
}

export class DnsForwarder {
  private readonly cache = new Map<string, Promise<Resolution>>();
  private readonly counters: DnsForwarderStats = { queries: 0, answered: 0 };

  private constructor(
    private readonly socket: Socket,
    private readonly resolve: Resolver,
  ) {
    socket.on('message', (message, from) => void this.answer(message, from));
  }

  /** Listens on address:port (UDP); rejects with the socket's error (EADDRINUSE, EACCES). */
  static async listen(address: string, port = DNS_PORT, resolve: Resolver = hostResolver): Promise<DnsForwarder> {
    const socket = createSocket({ type: 'udp4', reuseAddr: true });
    await new Promise<void>((done, fail) => {
      socket.once('error', fail);
      socket.bind({ address, port, exclusive: true }, () => {
        socket.off('error', fail);
        done();
      });
    });
    socket.on('error', () => {});
    return new DnsForwarder(socket, resolve);
  }

  get port(): number {
    return this.socket.address().port;
  }

  stats(): DnsForwarderStats {
    return { ...this.counters };
  }

  close(): Promise<void> {
    return new Promise((done) => {
      try {
        this.socket.close(() => done());
      } catch {
        done();
      }
    });
  }

  private async answer(message: Buffer, from: RemoteInfo): Promise<void> {
    const query = parseQuery(message);
    if (query === undefined) return;
    this.counters.queries++;
    let response: Buffer;
    if ('rcode' in query) {
      response = buildResponse(query.id, query.flags, query.rcode);
    } else if (query.klass !== CLASS_IN || (query.type !== TYPE_A && query.type !== TYPE_AAAA)) {
      response = buildResponse(query.id, query.flags, Rcode.NotImp, query.section);
    } else {
      const result = await this.lookup(query.name, query.type === TYPE_A ? 4 : 6);
      response =
        result.rcode === Rcode.NoError
          ? buildResponse(query.id, query.flags, Rcode.NoError, query.section, query.type, result.addresses)
          : buildResponse(query.id, query.flags, result.rcode, query.section);
    }
    this.socket.send(response, from.port, from.address, (error) => {
      if (!error) this.counters.answered++;
    });
  }

  /** One resolution per name and family for the whole run; a name that has addresses of the other family is "no data", not "no such name". */
  private async lookup(name: string, family: 4 | 6): Promise<Resolution> {
    const result = await this.resolveOnce(name, family);
    if (result.rcode !== Rcode.NxDomain) return result;
    const other = await this.resolveOnce(name, family === 4 ? 6 : 4);
    return other.rcode === Rcode.NoError && other.addresses.length > 0 ? { rcode: Rcode.NoError, addresses: [] } : result;
  }

  private resolveOnce(name: string, family: 4 | 6): Promise<Resolution> {
    const key = `${family}:${name.toLowerCase()}`;
    let found = this.cache.get(key);
    if (found === undefined) {
      found = this.resolve(name, family);
      this.cache.set(key, found);
    }
    return found;
  }
}
