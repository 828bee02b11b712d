// The graph of mm-link logs: SVG that parses, with the marks the data call for.
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { XMLValidator } from 'fast-xml-parser';
import { parseLinkLog } from '../../src/link-emu/link-log.ts';
import { linkDirectionSeries, linkGraphSpec, markName } from '../../src/plots/link-graph.ts';
import { renderHtml, renderSvg } from '../../src/plots/render.ts';

// Uplink: 3 delivered packets, drops in bins 0 and 1 (of 100 ms), opportunities in bins 0 and 2.
const UP = `# mahimahi mm-link (Uplink) [t] > up.log
# base timestamp: 100
100 + 1000
100 # 1500
103 + 500
104 + 1500
104 d 1 1500
105 - 1000 5
106 + 250
107 - 500 4
108 - 250 2
250 + 100
250 d 1 100
300 # 1500
`;
// Downlink: no drops, 2 delivered packets.
const DOWN = `# mahimahi mm-link (Downlink) [t] > down.log
# base timestamp: 100
120 + 600
130 # 1500
130 - 600 10
140 + 700
150 # 1500
150 - 700 10
`;

/** The SVG elements drawn for mark `name`: the paths (lines, for rules) inside its group; -1 when it has no group. */
function marksOf(svg: string, name: string): number {
  const m = new RegExp(`<g class="mark-[a-z]+ role-mark ${name}_marks"[^>]*?(/>|>(.*?)</g>)`, 's').exec(svg);
  if (!m) return -1;
  return ((m[2] ?? '').match(/<(path|line) /g) ?? []).length;
}

async function graph() {
  const up = linkDirectionSeries(parseLinkLog(UP, 'up.log'), 100, 'up.log (Uplink)');
  const down = linkDirectionSeries(parseLinkLog(DOWN, 'down.log'), 100, 'down.log (Downlink)');
  const spec = linkGraphSpec([up, down]);
  return { up, down, spec, svg: await renderSvg(spec) };
}

test('the SVG parses as XML and has both directions, side by side, with the expected marks', async () => {
  const { svg } = await graph();
  assert.is(XMLValidator.validate(svg), true);
  assert.match(svg, /^<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  assert.ok(svg.includes('up.log (Uplink)') && svg.includes('down.log (Downlink)'));
  // Uplink: drops in bins 0 and 1 (time 250 is 150 ms after the base timestamp); 3 packets.
  assert.is(marksOf(svg, markName(0, 'drops')), 2);
  assert.is(marksOf(svg, markName(0, 'packets')), 3);
  for (const layer of ['capacity', 'ingress', 'egress', 'signal', 'p95signal', 'p95packet'] as const) {
    assert.is(marksOf(svg, markName(0, layer)), 1, layer);
    assert.is(marksOf(svg, markName(1, layer)), 1, layer);
  }
  // Downlink: no drops, two packets.
  assert.is(marksOf(svg, markName(1, 'drops')), 0);
  assert.is(marksOf(svg, markName(1, 'packets')), 2);
});

test('the series: bins with the drops, signal delay vertices that give every millisecond\'s value', async () => {
  const { up } = await graph();
  assert.equal(up.bins.map((b) => b.dropPackets), [1, 1, 0]);
  assert.is(up.startMs, 0);
  assert.is(up.endMs, 200);
  // Per-ms signal delay from arrival 0 (after the base): 5 6 5 4 4 3 2; vertices where the -1 ms/ms slope breaks.
  const at = (t: number) => {
    const v = up.signal;
    for (let i = 0; i < v.length - 1; i++) {
      if (t >= v[i].timeMs && t <= v[i + 1].timeMs) return v[i].delayMs + ((v[i + 1].delayMs - v[i].delayMs) * (t - v[i].timeMs)) / (v[i + 1].timeMs - v[i].timeMs);
    }
    return v[v.length - 1].delayMs;
  };
  assert.equal([0, 1, 2, 3, 4, 5, 6].map(at), [5, 6, 5, 4, 4, 3, 2]);
  assert.equal(up.packets, [{ arrivalMs: 0, delayMs: 5 }, { arrivalMs: 3, delayMs: 4 }, { arrivalMs: 6, delayMs: 2 }]);
});

test('rendering is deterministic: the same specification gives the same bytes', async () => {
  const a = await graph();
  const b = await graph();
  assert.is(a.svg, b.svg);
});

test('the HTML page holds the rendered SVG and the specification itself, for reuse', async () => {
  const { spec, svg } = await graph();
  const html = await renderHtml('a <test>', [{ title: 'Throughput & delay', spec }], '<pre>figures</pre>');
  assert.match(html, /^<!DOCTYPE html>/);
  assert.ok(html.includes('<title>a &lt;test&gt;</title>'));
  assert.ok(html.includes('<h2>Throughput &amp; delay</h2>'));
  assert.ok(html.includes(svg));
  const json = /<script type="application\/vnd.vegalite\+json">(.*?)<\/script>/s.exec(html);
  assert.ok(json);
  assert.equal(JSON.parse(json![1]), JSON.parse(JSON.stringify(spec)));
});

test('a log without a delivered packet still draws (no delays to show) instead of failing', async () => {
  const only = linkDirectionSeries(parseLinkLog('# base timestamp: 0\n10 + 100\n20 d 1 100\n30 # 1500\n', 'x.log'), 10, 'x.log');
  const svg = await renderSvg(linkGraphSpec([only]));
  assert.is(XMLValidator.validate(svg), true);
  assert.is(marksOf(svg, markName(0, 'drops')), 1);
  assert.ok(svg.includes('no packet delivered'));
});


test("the specification's rates are rounded to the precision they have (a byte per bin), without binary noise", async () => {
  // Summed in floating point, bins of this Mahimahi log came out as 1.2543520000000001 and 2.5294879999999997 Mbit/s.
  const path = new URL('../../../shared/conformance/att_droptail_p20.up.log', import.meta.url);
  const series = linkDirectionSeries(parseLinkLog(readFileSync(path, 'utf8'), 'att_droptail_p20.up.log'), 500, 'att_droptail_p20.up.log (Uplink)');
  const numbers: number[] = [];
  JSON.stringify(linkGraphSpec([series]), (_, v: unknown) => {
    if (typeof v === 'number') numbers.push(v);
    return v;
  });
  assert.ok(numbers.length > 100);
  for (const x of numbers) assert.is(x, Number(x.toFixed(6)), `${x} carries more digits than a byte per 500 ms bin (1.6e-5 Mbit/s)`);
});

test.run();
