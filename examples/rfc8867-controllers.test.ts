// A congestion controller's own unit tests on RFC 8867's cases: the library
// call runRfc8867Case(case, controller) runs a case in the simulator (about a
// second of wall time for 100 s simulated) and returns RFC 8868's metrics,
// so a test asserts on them. The same seed gives the same figures on any
// machine. `npm test` runs this file too.
//
// A controller of your own: `runRfc8867Case('5.1', './my-controller.ts')`,
// or the module object itself (`{ name, createController(options) }`), or
// any FlowFactory (src/cc/flow.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runRfc8867Case, aimdController } from 'lowlat-video-toolkit/cc';

test('aimd passes 5.1 (variable capacity): uses the link, keeps the queue short, converges after each change', async () => {
  const r = await runRfc8867Case('5.1', aimdController);
  const [flow] = r.metrics.flows;
  assert.ok(flow!.utilisation > 0.6, `utilisation ${flow!.utilisation}`);
  assert.ok(flow!.queueingDelayMs.p95! < 150, `p95 queueing delay ${flow!.queueingDelayMs.p95} ms`);
  assert.ok(flow!.lossRate < 0.05, `loss ${flow!.lossRate}`);
  for (const c of r.metrics.convergence) assert.ok(c.convergenceMs !== null && c.convergenceMs <= 15_000, `${c.capacityMbps} Mbit/s at ${c.atMs / 1000} s: ${c.convergenceMs}`);
  assert.ok(r.pass, JSON.stringify(r.checks));
});

test('aimd shares fairly with itself (5.4: three flows starting 20 s apart)', async () => {
  const r = await runRfc8867Case('5.4', 'aimd');
  assert.ok(r.metrics.fairness[0]!.jainIndex! > 0.9, `Jain's index ${r.metrics.fairness[0]!.jainIndex}`);
});

test('gcc on 5.1 uses the link and loses little (its queueing delay is reported, not asserted here)', async () => {
  const r = await runRfc8867Case('5.1', 'gcc');
  const [flow] = r.metrics.flows;
  assert.ok(flow!.utilisation > 0.6, `utilisation ${flow!.utilisation}`);
  assert.ok(flow!.lossRate < 0.02, `loss ${flow!.lossRate}`);
});

test('the same seed, the same metrics', async () => {
  const a = await runRfc8867Case('5.8', 'gcc', { seed: 7 });
  const b = await runRfc8867Case('5.8', 'gcc', { seed: 7 });
  assert.equal(a.metrics, b.metrics);
});

test.run();
