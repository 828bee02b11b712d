import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createQueue, parseQueueArgs, QueueConfigError, QUEUE_KINDS } from '../../src/link-emu/queue-factory.ts';
import { CoDelQueue } from '../../src/link-emu/queues/codel.ts';
import { DropHeadQueue } from '../../src/link-emu/queues/drophead.ts';
import { DropTailQueue } from '../../src/link-emu/queues/droptail.ts';
import { InfiniteQueue } from '../../src/link-emu/queues/infinite.ts';
import { PieQueue } from '../../src/link-emu/queues/pie.ts';
import { createRng } from '../../src/common/random.ts';

const rng = createRng('factory');

test('parseQueueArgs: mm-link syntax, with or without spaces after commas and around "="', () => {
  assert.equal([...parseQueueArgs('droptail', 'packets=100,bytes=30000')], [['packets', 100], ['bytes', 30000]]);
  assert.equal([...parseQueueArgs('droptail', 'packets=100, bytes=30000')], [['packets', 100], ['bytes', 30000]]);
  assert.equal([...parseQueueArgs('codel', ' target = 5 ,interval=100,packets=0 ')], [['target', 5], ['interval', 100], ['packets', 0]]);
  assert.equal([...parseQueueArgs('infinite', '')], []);
  assert.equal([...parseQueueArgs('pie', 'qdelay_ref=15,max_burst=150,bytes=4294967295')], [['qdelay_ref', 15], ['max_burst', 150], ['bytes', 4294967295]]);
});

test('createQueue: each kind by its mm-link name, with its describe() text', () => {
  const cases: [string, string, Function, string][] = [
    ['infinite', '', InfiniteQueue, 'infinite'],
    ['droptail', 'packets=20', DropTailQueue, 'droptail [packets=20]'],
    ['droptail', 'packets=100,bytes=30000', DropTailQueue, 'droptail [bytes=30000, packets=100]'],
    ['drophead', 'bytes=30000', DropHeadQueue, 'drophead [bytes=30000]'],
    ['drophead', 'bytes=30000,packets=0', DropHeadQueue, 'drophead [bytes=30000]'],
    ['codel', 'target=5,interval=100,packets=100', CoDelQueue, 'codel [packets=100]'],
    ['pie', 'qdelay_ref=15,max_burst=150,bytes=60000', PieQueue, 'pie [bytes=60000]'],
  ];
  for (const [kind, args, type, text] of cases) {
    const q = createQueue<string>(kind, args, rng);
    assert.instance(q, type);
    assert.is(q.kind, kind);
    assert.is(q.describe(), text);
  }
  const codel = createQueue('codel', 'interval=80, target=7, bytes=9000', rng) as CoDelQueue;
  assert.is(codel.target, 7);
  assert.is(codel.interval, 80);
  assert.equal(codel.limit, { packets: 0, bytes: 9000 });
  const pie = createQueue('pie', 'max_burst=100,qdelay_ref=20,packets=50', rng) as PieQueue;
  assert.is(pie.qdelayRef, 20);
  assert.is(pie.maxBurst, 100);
});

test('QUEUE_KINDS lists mm-link\'s five names', () => {
  assert.equal(QUEUE_KINDS, ['infinite', 'droptail', 'drophead', 'codel', 'pie']);
});

/** Asserts a QueueConfigError whose message matches and whose fields say what was wrong. */
function rejects(kind: string, args: string, message: RegExp, key?: string, value?: string) {
  try {
    createQueue(kind, args, rng);
  } catch (error) {
    assert.instance(error, QueueConfigError);
    const e = error as QueueConfigError;
    assert.match(e.message, message);
    assert.is(e.kind, kind);
    if (key !== undefined) assert.is(e.key, key);
    if (value !== undefined) assert.is(e.value, value);
    return;
  }
  assert.unreachable(`createQueue(${kind}, ${args}) should have thrown`);
}

test('errors: unknown kind', () => {
  rejects('red', 'packets=10', /^unknown queue "red": expected one of infinite, droptail, drophead, codel, pie$/);
  rejects('DropTail', 'packets=10', /unknown queue "DropTail"/);
  rejects('', '', /unknown queue ""/);
  assert.throws(() => parseQueueArgs('fifo', ''), /unknown queue "fifo"/);
});

test('errors: unknown argument names, naming kind, key and value', () => {
  rejects('droptail', 'packets=10,target=5', /^queue droptail: unknown argument target=5 \(droptail takes packets, bytes\)$/, 'target', '5');
  rejects('infinite', 'packets=10', /^queue infinite: unknown argument packets=10 \(infinite takes no arguments\)$/, 'packets', '10');
  rejects('codel', 'target=5,interval=100,packets=10,qdelay_ref=3', /queue codel: unknown argument qdelay_ref=3 \(codel takes packets, bytes, target, interval\)/, 'qdelay_ref', '3');
  rejects('pie', 'qdelay_ref=15,max_burst=150,packets=10,interval=9', /queue pie: unknown argument interval=9/, 'interval', '9');
  rejects('droptail', 'Packets=10', /unknown argument Packets=10/, 'Packets');
});

test('errors: malformed pairs', () => {
  rejects('droptail', 'packets', /^queue droptail: malformed argument "packets" in "packets": expected NAME=NUMBER$/, 'packets');
  rejects('droptail', 'packets=10,', /malformed argument "" in "packets=10,"/);
  rejects('droptail', 'packets=10,,bytes=5', /malformed argument ""/);
  rejects('droptail', '=10', /malformed argument "=10" .*no name before "="/, '', '10');
  rejects('droptail', 'packets:10', /malformed argument "packets:10"/);
  rejects('droptail', 'packets=10 bytes=5', /packets=10 bytes=5 is not a non-negative integer/, 'packets', '10 bytes=5');
});

test('errors: non-integer, negative, empty, too large and repeated values', () => {
  rejects('droptail', 'packets=1.5', /^queue droptail: packets=1\.5 is not a non-negative integer$/, 'packets', '1.5');
  rejects('droptail', 'packets=abc', /packets=abc is not a non-negative integer/, 'packets', 'abc');
  rejects('droptail', 'packets=', /packets= is not a non-negative integer/, 'packets', '');
  rejects('droptail', 'packets=1e3', /packets=1e3 is not a non-negative integer/);
  rejects('droptail', 'packets=0x10', /packets=0x10 is not a non-negative integer/);
  rejects('droptail', 'packets=+5', /packets=\+5 is not a non-negative integer/);
  rejects('drophead', 'bytes=-3000', /^queue drophead: bytes=-3000 is negative \(expected a non-negative integer\)$/, 'bytes', '-3000');
  rejects('codel', 'target=-5,interval=100,packets=10', /queue codel: target=-5 is negative/, 'target', '-5');
  rejects('droptail', 'packets=4294967296', /packets=4294967296 is too large \(at most 4294967295\)/, 'packets');
  rejects('droptail', 'packets=10,packets=20', /queue droptail: argument packets given twice in "packets=10,packets=20"/, 'packets', '20');
});

test('errors: missing limit, missing or zero AQM parameters', () => {
  rejects('droptail', '', /^queue droptail: needs a limit, packets=N and\/or bytes=N with N > 0 \(got ""\)$/);
  rejects('drophead', 'packets=0,bytes=0', /queue drophead: needs a limit.*got "packets=0,bytes=0"/);
  rejects('codel', 'target=5,interval=100', /queue codel: needs a limit/);
  rejects('pie', 'qdelay_ref=15,max_burst=150', /queue pie: needs a limit/);
  rejects('codel', 'interval=100,packets=10', /^queue codel: missing argument target \(milliseconds; RFC 8289 suggests target=5\)$/, 'target');
  rejects('codel', 'target=5,packets=10', /queue codel: missing argument interval .*interval=100/, 'interval');
  rejects('pie', 'max_burst=150,packets=10', /queue pie: missing argument qdelay_ref .*qdelay_ref=15/, 'qdelay_ref');
  rejects('pie', 'qdelay_ref=15,packets=10', /queue pie: missing argument max_burst .*max_burst=150/, 'max_burst');
  rejects('codel', 'target=0,interval=100,packets=10', /^queue codel: target=0 must be greater than 0 \(milliseconds\)$/, 'target', '0');
  rejects('pie', 'qdelay_ref=15,max_burst=0,packets=10', /queue pie: max_burst=0 must be greater than 0/, 'max_burst', '0');
});

test('parseQueueArgs never crashes on random text: a map or a QueueConfigError', () => {
  const r = createRng('fuzz-queue-args');
  const alphabet = 'packetsbytargein_vlqdm=,0123456789 -.+\t\n\u00e9=,';
  for (let i = 0; i < 3000; i++) {
    const length = r.int(40);
    let text = '';
    for (let j = 0; j < length; j++) text += alphabet[r.int(alphabet.length)];
    for (const kind of ['droptail', 'codel', 'pie', 'infinite']) {
      try {
        const q = createQueue(kind, text, r);
        assert.is(typeof q.describe(), 'string');
      } catch (error) {
        assert.instance(error, QueueConfigError, `kind ${kind}, args ${JSON.stringify(text)}: ${error}`);
      }
    }
  }
});

test.run();
