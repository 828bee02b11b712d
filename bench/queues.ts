// Throughput of the queue disciplines: enqueue + dequeue operations per second
// of wall time, against a plain-array FIFO (push/shift) run in the same process.
//
//   node --import tsx bench/queues.ts [pairs]        (default 2,000,000 per run)
//
// Two workloads, each run 3 times (the best run counts):
// - steady:   a standing queue of 100 packets; per step one arrival and one
//             dequeue, the clock advancing 0.01 ms per step (sojourn 1 ms, so
//             CoDel and PIE never drop).
// - overload: two arrivals per dequeue into a 256-packet limit (half are
//             dropped: by the limit, at the head, by CoDel or by PIE's random
//             early drops), the clock advancing 0.01 ms per arrival.
// Figures are operations (enqueues + dequeues) per second; the ratio column
// is that rate divided by the plain array's in the same workload.

import type { DropListener, PacketQueue, QueuedPacket } from '../src/link-emu/queue.ts';
import { createQueue } from '../src/link-emu/queue-factory.ts';
import { createRng } from '../src/common/random.ts';

const PAIRS = Number(process.argv[2] ?? 2_000_000);
if (!Number.isInteger(PAIRS) || PAIRS <= 0) throw new Error(`pairs must be a positive integer, got ${process.argv[2]}`);

/** The baseline: a plain JavaScript array used as a FIFO, with an optional packet limit (droptail). */
class ArrayQueue implements PacketQueue<number> {
  readonly kind = 'array';
  private readonly items: QueuedPacket<number>[] = [];
  private bytes = 0;
  constructor(private readonly limit = Infinity) {}
  enqueue(packet: QueuedPacket<number>, now: number, onDrop: DropListener<number>): void {
    if (this.items.length >= this.limit) return onDrop(packet, now);
    this.items.push(packet);
    this.bytes += packet.size;
  }
  dequeue(): QueuedPacket<number> | undefined {
    const packet = this.items.shift();
    if (packet !== undefined) this.bytes -= packet.size;
    return packet;
  }
  sizeBytes(): number {
    return this.bytes;
  }
  sizePackets(): number {
    return this.items.length;
  }
  describe(): string {
    return 'array';
  }
}

let dropped = 0;
const onDrop: DropListener<number> = () => {
  dropped++;
};

/** Packets are made up front so that the timing measures the queue only. */
const packets: QueuedPacket<number>[] = [];
for (let i = 0; i < 4096; i++) packets.push({ size: 200 + ((i * 7919) % 1300), arrival: 0, payload: i });
const mask = packets.length - 1;

function steady(q: PacketQueue<number>): { seconds: number; ops: number } {
  let now = 0;
  for (let i = 0; i < 100; i++) q.enqueue({ ...packets[i & mask], arrival: now }, now, onDrop);
  const start = performance.now();
  for (let i = 0; i < PAIRS; i++) {
    now += 0.01;
    q.enqueue({ size: packets[i & mask].size, arrival: now, payload: i }, now, onDrop);
    q.dequeue(now, onDrop);
  }
  return { seconds: (performance.now() - start) / 1000, ops: 2 * PAIRS };
}

function overload(q: PacketQueue<number>): { seconds: number; ops: number } {
  let now = 0;
  const start = performance.now();
  for (let i = 0; i < PAIRS; i++) {
    now += 0.01;
    q.enqueue({ size: packets[i & mask].size, arrival: now, payload: i }, now, onDrop);
    now += 0.01;
    q.enqueue({ size: packets[(i + 1) & mask].size, arrival: now, payload: i }, now, onDrop);
    q.dequeue(now, onDrop);
  }
  return { seconds: (performance.now() - start) / 1000, ops: 3 * PAIRS };
}

interface Contender {
  name: string;
  make: () => PacketQueue<number>;
}

function best(workload: (q: PacketQueue<number>) => { seconds: number; ops: number }, make: () => PacketQueue<number>) {
  let rate = 0;
  for (let run = 0; run < 3; run++) {
    const { seconds, ops } = workload(make());
    rate = Math.max(rate, ops / seconds);
  }
  return rate;
}

function report(title: string, workload: typeof steady, contenders: Contender[]) {
  dropped = 0;
  const baseline = best(workload, contenders[0].make);
  console.log(`\n${title} (${PAIRS.toLocaleString('en-US')} steps per run, best of 3)`);
  console.log(`${'queue'.padEnd(44)}${'ops/s'.padStart(14)}${'ratio'.padStart(8)}`);
  console.log(`${contenders[0].name.padEnd(44)}${fmt(baseline)}${'1.00'.padStart(8)}`);
  for (const c of contenders.slice(1)) {
    const rate = best(workload, c.make);
    console.log(`${c.name.padEnd(44)}${fmt(rate)}${(rate / baseline).toFixed(2).padStart(8)}`);
  }
}

function fmt(rate: number): string {
  return Math.round(rate).toLocaleString('en-US').padStart(14);
}

const rng = createRng('bench-queues');
const q = (kind: string, args: string): Contender => ({ name: `${kind} ${args}`.trim(), make: () => createQueue<number>(kind, args, rng) });

report('steady (1 in, 1 out, 100 queued)', steady, [
  { name: 'plain array (push/shift)', make: () => new ArrayQueue() },
  q('infinite', ''),
  q('droptail', 'packets=256'),
  q('drophead', 'packets=256'),
  q('droptail', 'bytes=400000'),
  q('codel', 'target=5,interval=100,packets=256'),
  q('pie', 'qdelay_ref=15,max_burst=150,packets=256'),
]);

report('overload (2 in, 1 out, limit 256 packets)', overload, [
  { name: 'plain array (push/shift, limit 256)', make: () => new ArrayQueue(256) },
  q('droptail', 'packets=256'),
  q('drophead', 'packets=256'),
  q('drophead', 'bytes=200000'),
  q('codel', 'target=5,interval=100,packets=256'),
  q('pie', 'qdelay_ref=15,max_burst=150,packets=256'),
]);
console.log(`\n(drops counted: ${dropped.toLocaleString('en-US')}; node ${process.version})`);
