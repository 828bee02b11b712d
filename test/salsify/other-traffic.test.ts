// Other traffic on the simulated downlink: its schedule, what the oracle is told is still to come, and its checks.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Simulator } from '../../src/net/simulator.ts';
import { OtherTrafficSender, otherTrafficIntervalMs, otherTrafficProblem, otherTrafficText } from '../../src/salsify/other-traffic.ts';

test('a packet every packetBytes / bytesPerS seconds from the start, each payload the packet less the overhead, until the end', async () => {
  const sim = new Simulator();
  const sent: { at: number; bytes: number }[] = [];
  const sender = new OtherTrafficSender({ bytesPerS: 4000, packetBytes: 100 }, 42);
  assert.is(sender.intervalMs, 25);
  sender.start(sim, (b) => sent.push({ at: sim.now(), bytes: b.length }), 100);
  await sim.run({ until: 1000 });
  assert.equal(sent, [25, 50, 75].map((at) => ({ at, bytes: 58 })));
  assert.is(sender.packetsSent, 3);
});

test('upcoming: the packets not sent yet that reach the link by a time, as arrivals at the link', async () => {
  const sim = new Simulator();
  const sender = new OtherTrafficSender({ bytesPerS: 4000, packetBytes: 100 }, 42);
  sender.start(sim, () => {}, 10_000);
  await sim.run({ until: 60 });
  // Packets 1 and 2 (25, 50 ms) are sent; 3 and 4 leave at 75 and 100 ms and reach the link 20 ms later.
  assert.equal(sender.upcoming(20, 120), [{ atMs: 95, bytes: 100 }, { atMs: 120, bytes: 100 }]);
  assert.equal(sender.upcoming(20, 94), []);
});

test('the checks name what a valid value is; the text is the option\'s', () => {
  assert.is(otherTrafficProblem({ bytesPerS: 4000, packetBytes: 100 }, 42, 1472), undefined);
  for (const bad of [{ bytesPerS: 0, packetBytes: 100 }, { bytesPerS: 4000, packetBytes: 42 }, { bytesPerS: 4000, packetBytes: 1515 }, { bytesPerS: 4000, packetBytes: 99.5 }, { bytesPerS: Infinity, packetBytes: 100 }]) {
    assert.match(otherTrafficProblem(bad, 42, 1472) ?? '', /bytesPerS > 0 and at most 1e9, packetBytes an integer from 43 to 1514/, JSON.stringify(bad));
  }
  assert.is(otherTrafficIntervalMs({ bytesPerS: 1000, packetBytes: 50 }), 50);
  assert.is(otherTrafficText({ bytesPerS: 4000, packetBytes: 100 }), '4000,100');
  assert.is(otherTrafficText(null), 'none');
});

test.run();
