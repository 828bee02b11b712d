// Replaying the arrivals of logs written by the real Mahimahi mm-link must
// reproduce every one of their lines ("+", "#", "-" and "d"), in order.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LinkLogWriter, formatLogEvent, parseLinkLog } from '../../src/link-emu/link-log.ts';
import { createQueue } from '../../src/link-emu/queue-factory.ts';
import { createRng } from '../../src/common/random.ts';
import { arrivalsFromLog, lastLogTime, replay } from '../../src/link-emu/replay.ts';
import { loadTrace } from '../../src/link-emu/trace-files.ts';

const dir = join(import.meta.dirname, '../../../shared/conformance');
interface Entry { log: string; trace: string; queue: string; queueArgs: string; once: boolean; mtu: number }
const manifest: Entry[] = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));

test('the manifest names at least five Mahimahi logs', () => {
  assert.ok(manifest.length >= 5);
});

for (const entry of manifest) {
  test(`replay reproduces Mahimahi's ${entry.log} line for line`, () => {
    const log = parseLinkLog(readFileSync(join(dir, entry.log), 'utf8'), entry.log);
    assert.type(log.header.baseTimestamp, 'number');
    let out = '';
    const writer = new LinkLogWriter((chunk) => (out += chunk));
    replay({
      arrivals: arrivalsFromLog(log),
      trace: loadTrace(join(dir, entry.trace)),
      queue: createQueue<null>(entry.queue, entry.queueArgs, createRng(1)),
      mtu: entry.mtu,
      once: entry.once,
      baseTimestamp: log.header.baseTimestamp!,
      until: lastLogTime(log),
      events: writer,
    });
    writer.close();
    const ours = out.split('\n');
    ours.pop();
    assert.is(ours.length, log.count, 'number of event lines');
    for (let i = 0; i < log.count; i++) {
      const theirs = formatLogEvent(log, i);
      if (ours[i] !== theirs) assert.unreachable(`line ${i + 1} of the events differs: ours ${JSON.stringify(ours[i])}, Mahimahi's ${JSON.stringify(theirs)}`);
    }
  });
}

test.run();
