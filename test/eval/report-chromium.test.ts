// The report of `salsify eval` opened in headless Chromium (Debian's chromium,
// driven by puppeteer-core): every chart is there and rendered (its marks as
// many as the data call for, a screenshot that is not blank), and every SVG
// file under plots/ parses as XML.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLValidator } from 'fast-xml-parser';
import puppeteer from 'puppeteer-core';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readPaperResults } from '../../src/eval/paper-reference.ts';
import type { StoredRun } from '../../src/eval/store.ts';
import { runEval } from './helpers.ts';
import { requires } from '../helpers/requires.ts';
import { HANG_BOUND_MS } from '../helpers/bounds.ts';

const CHROMIUM = process.env.SALSIFY_CHROMIUM ?? '/usr/lib/chromium/chromium';
const dir = mkdtempSync(join(tmpdir(), 'eval-report-'));
const out = join(dir, 'out');

test.after(() => rmSync(dir, { recursive: true, force: true }));

requires(['chromium'])('salsify eval writes a report whose every chart renders in Chromium with the expected marks', async () => {
  const r = await runEval(['--scenarios', 'wifi', '--schemes', 'salsify-1,conventional-1s,oracle', '--measure-from', '10', '--measure-for', '2', '--jobs', '2', '--out', out]);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /wifi Salsify-1 \(paper\)/);
  assert.match(r.stdout, new RegExp(`report: ${join(out, 'report.html').replace(/[.]/g, '\\.')}`));

  // Every SVG file parses.
  const svgs = readdirSync(join(out, 'plots')).filter((f) => f.endsWith('.svg')).sort();
  assert.equal(svgs, ['run-wifi_conventional-1s_1.svg', 'run-wifi_oracle_1.svg', 'run-wifi_salsify-1_1.svg', 'scenario-wifi.svg']);
  for (const f of svgs) assert.is(XMLValidator.validate(readFileSync(join(out, 'plots', f), 'utf8')), true, f);

  const stored = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as StoredRun[];
  assert.is(stored.length, 3);
  // What the scenario chart must draw: ours with a finite SSIM (conventional-1s may show no frame in 2 s), the paper's Salsify-1 and conventional rows it has, the oracle.
  // Every scheme is drawn: at its place, off the scale at the edge, or (no frame shown) at the bottom.
  const oursExpected = stored.filter((s) => s.key.config.scheme !== 'oracle').length;
  const oracleExpected = stored.filter((s) => s.key.config.scheme === 'oracle').length;
  assert.is(oracleExpected, 1);
  const paper = readPaperResults();
  const paperExpected = stored.filter((s) => paper.forScheme('wifi', s.key.config.scheme) !== undefined).length;
  assert.is(paperExpected, 1);

  assert.ok(existsSync(CHROMIUM), `Chromium is not at ${CHROMIUM} (apt-get install -y chromium)`);
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM, headless: true, pipe: true, ignoreDefaultArgs: true,
    args: [...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), '--headless', '--disable-gpu', '--no-first-run', '--remote-debugging-pipe', `--user-data-dir=${join(dir, 'profile')}`],
    handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false, timeout: HANG_BOUND_MS, protocolTimeout: HANG_BOUND_MS,
  });
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1200, height: 900 });
    await page.goto(`file://${join(out, 'report.html')}`, { waitUntil: 'load', timeout: HANG_BOUND_MS });
    const charts = await page.$$eval('section.chart', (sections) => sections.map((s) => ({
      title: s.querySelector('h2')?.textContent ?? '',
      svg: s.querySelector('svg') !== null,
      marks: Object.fromEntries([...s.querySelectorAll('g.role-mark')].map((g) => [[...g.classList].find((c) => c.endsWith('_marks')) ?? '', g.querySelectorAll(':scope > path, :scope > text').length])),
    })));
    assert.is(charts.length, 4, 'one scenario chart and one per run');
    const scenario = charts[0]!;
    assert.match(scenario.title, /wifi/);
    assert.is((scenario.marks.ours_marks ?? 0) + (scenario.marks.off_scale_marks ?? 0) + (scenario.marks.no_ssim_marks ?? 0), oursExpected, 'every scheme of ours');
    assert.is(scenario.marks.paper_marks, paperExpected, "the paper's rows for our schemes (wifi: Salsify-1 only)");
    assert.is(scenario.marks.oracle_marks, 1);
    for (const [i, run] of stored.entries()) {
      const chart = charts[1 + i]!;
      assert.match(chart.title, new RegExp(run.id.replace(/\//g, '\\/')));
      assert.is(chart.marks.capacity_marks, 1, `${run.id}: capacity area`);
      assert.is(chart.marks.delivered_marks, 1, `${run.id}: delivered line`);
      assert.is(chart.marks.sent_marks, 1, `${run.id}: send-rate line`);
      assert.is(chart.marks.delay_max_marks, 1, `${run.id}: delay line`);
      assert.is(chart.marks.skipped_marks, run.series.filter((b) => b.skipped > 0).length, `${run.id}: skip marks`);
      assert.is(chart.marks.lost_marks, run.series.filter((b) => b.lost > 0).length, `${run.id}: loss marks`);
      assert.is(chart.marks.ssim_marks, run.series.some((b) => b.ssimDb !== null) ? 1 : 0, `${run.id}: SSIM line`);
    }
    // Not blank: each chart's screenshot has many pixels that are not the white background, in several colours.
    const sections = await page.$$('section.chart svg');
    for (const [i, element] of sections.entries()) {
      const png = (await element.screenshot({ encoding: 'base64' })) as string;
      const { inked, colours } = await page.evaluate(async (data: string) => {
        const img = new Image();
        img.src = `data:image/png;base64,${data}`;
        await img.decode();
        const canvas = document.createElement('canvas');
        canvas.width = img.width;
        canvas.height = img.height;
        const ctx = canvas.getContext('2d')!;
        ctx.drawImage(img, 0, 0);
        const px = ctx.getImageData(0, 0, img.width, img.height).data;
        let inked = 0;
        const colours = new Set<number>();
        for (let p = 0; p < px.length; p += 4) {
          if (px[p]! < 240 || px[p + 1]! < 240 || px[p + 2]! < 240) inked++;
          colours.add((px[p]! >> 4) * 256 + (px[p + 1]! >> 4) * 16 + (px[p + 2]! >> 4));
        }
        return { inked, colours: colours.size };
      }, png);
      assert.ok(inked > 2000, `chart ${i}: only ${inked} inked pixels`);
      assert.ok(colours > 5, `chart ${i}: only ${colours} colours`);
    }
  } finally {
    await browser.close();
  }
});

test.run();
