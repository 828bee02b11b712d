// salsify eval's report and table with several seeds and a scheme that fails:
// the provenance block (commit, date, machine without its name, load, Node,
// libvpx), no absolute path of the machine, the spread across seeds, the
// degenerate and invalid rows marked with their values (never dropped), and a
// printed table that fits 100 columns.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ROOT, runEval } from './helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'eval-report-seeds-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

test('two seeds, conventional-1s showing no frame in the window: marked, drawn, with its value; provenance; 100 columns', async () => {
  const out = join(dir, 'out');
  const r = await runEval(['--scenarios', 'wifi', '--schemes', 'salsify-1,conventional-1s', '--seeds', '2', '--measure-from', '10', '--measure-for', '2', '--jobs', '2', '--out', out]);
  assert.is(r.code, 0, r.stderr);
  const table = r.stdout.slice(r.stdout.indexOf('┌'), r.stdout.lastIndexOf('┘') + 1);
  for (const line of table.split('\n')) assert.ok([...line].length <= 100, `${[...line].length} columns: ${line}`);
  assert.match(r.stdout, /each row: the mean over the seeds/);
  assert.match(table, /p95 range/);

  const html = readFileSync(join(out, 'report.html'), 'utf8');
  const stored = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as { id: string; result: { summary: { framesShown: number; signalDelayMs: { p95: number } } } }[];
  // Provenance: each field, and nothing that names the machine or its paths.
  const provenance = /<section id="provenance">([\s\S]*?)<\/section>/.exec(html)?.[1] ?? '';
  for (const field of ['commit', 'started', 'finished', 'cores', 'load average', 'at the start', 'at the end', 'Node', process.version, 'libvpx', 'browsers (included WebRTC calls)']) assert.match(provenance, field);
  assert.match(provenance, /commit [0-9a-f]{40}/);
  assert.not.match(html, new RegExp(hostname().replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '[^-\\w]'), 'no host name');
  assert.not.ok(html.includes(ROOT), 'no absolute path of the checkout');
  assert.not.ok(html.includes(dir), 'no absolute path of the output');
  assert.match(html, /\.\.\/shared\/reference\/salsify-paper-results\.csv/, 'the reference file relative to the working directory');
  // The spread across seeds, in the table.
  assert.match(html, /p95 across seeds/);
  // Every run of a scheme that showed no frame: in the tables with its delay, marked, and on the picture.
  // (The model's conventional-1s floods the 0.57 Mbit/s link: no frame of the 2 s window is shown, with either seed.)
  const failed = stored.filter((s) => s.id.includes('conventional-1s') && s.result.summary.framesShown === 0);
  assert.is(failed.length, 2);
  for (const f of failed) assert.ok(html.includes(f.result.summary.signalDelayMs.p95.toFixed(1)), `${f.id}'s p95 delay`);
  assert.match(html, /<tr class="invalid"><td>wifi conventional-1s<\/td>/);
  assert.match(html, /no frame shown \(0 of \d+\): SSIM unknown/);
  assert.match(readFileSync(join(out, 'plots', 'scenario-wifi.svg'), 'utf8'), /conventional-1s: no frame shown, p95 [\d,]+ ms/);
});

test.run();
