// Seeded fuzzing of parseLinkLog: random bytes, and random corruptions of a
// real Mahimahi log and of one linkshell wrote (seed lines included). Every
// input must give either a LinkLogParseError (one line, naming the source and
// a line number within the input) or a parsed log that agrees with a slow,
// separately written reference reading of the rules; never another error, a
// hang (each parse is timed) or a silent wrong result.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { createRng, type Rng } from '../../src/common/random.ts';
import { LinkLogParseError, parseLinkLog } from '../../src/link-emu/link-log.ts';

const MAHIMAHI_FULL = readFileSync(new URL('../../../shared/conformance/att_droptail_p20.up.log', import.meta.url), 'utf8');
const MAHIMAHI = MAHIMAHI_FULL.slice(0, MAHIMAHI_FULL.indexOf('\n', 3000) + 1);
const OURS =
  '# mahimahi mm-link (Uplink) [t] > l\n# command line: \'linkshell\'\n# queue: pie [packets=100]\n# init timestamp: 1796008879961\n# base timestamp: 4\n' +
  '# seed of stage 0 (link): "7/uplink/stage0-link"\n5 + 100\n6 # 1504\n6 - 100 1\n7 d 1 50\n9 + 1400\n9 # 1504\n9 - 1400 0\n12 d 2 3000\n';

type Event = [number, string, number, number];

/** The rules, read naively: the events, or null when the input must be rejected. */
function reference(text: string): { events: Event[]; base?: number; seeds: string[] } | null {
  const lines = text.split('\n');
  const events: Event[] = [];
  let base: number | undefined;
  const seeds: string[] = [];
  const count = (s: string) => (/^\d{1,16}$/.test(s) && Number(s) <= Number.MAX_SAFE_INTEGER ? Number(s) : null);
  for (let raw of lines) {
    if (raw.endsWith('\r')) raw = raw.slice(0, -1);
    if (raw === '') continue;
    if (raw.startsWith('#')) {
      if (raw.startsWith('# seed of stage ')) {
        const m = /^# seed of stage \d{1,6} \((delay|loss|gilbert-elliott|onoff|link)\): (".*")$/.exec(raw);
        if (!m) return null;
        let seed: unknown;
        try {
          seed = JSON.parse(m[2]);
        } catch {
          return null;
        }
        if (typeof seed !== 'string') return null;
        seeds.push(seed);
      } else if (raw.startsWith('# base timestamp: ') || raw.startsWith('# init timestamp: ')) {
        const v = count(raw.slice(18));
        if (v === null) return null;
        if (raw.startsWith('# base')) base = v;
      } else if (raw.startsWith('# mahimahi mm-link ')) {
        if (!/^\(.*\) \[.*\] > .*$/.test(raw.slice(19))) return null;
      }
      continue;
    }
    const m = /^(\S+) ([+#]) (\S+)$/.exec(raw) ?? /^(\S+) ([-d]) (\S+) (\S+)$/.exec(raw);
    if (!m) return null;
    const t = count(m[1]);
    const x = count(m[3]);
    const y = m[4] === undefined ? 0 : count(m[4]);
    if (t === null || x === null || y === null) return null;
    if (events.length > 0 && t < events[events.length - 1][0]) return null;
    if (x < 1) return null;
    if (m[2] === '-' && y > t) return null;
    if (m[2] === 'd' && y < x) return null;
    events.push([t, m[2], x, y]);
  }
  return { events, base, seeds };
}

function check(text: string, label: string): 'valid' | 'error' {
  const lineCount = text.split('\n').length;
  const started = process.hrtime.bigint();
  let log;
  try {
    log = parseLinkLog(text, 'fuzz.log');
  } catch (error) {
    if (!(error instanceof LinkLogParseError)) throw new Error(`${label}: threw ${String(error)} instead of a LinkLogParseError`);
    assert.ok(error.message.startsWith('fuzz.log:'), error.message);
    assert.ok(error.line !== undefined && error.line >= 1 && error.line <= lineCount, `${label}: line ${error.line} of ${lineCount}`);
    assert.not.match(error.message, /\n/, `${label}: message of more than one line`);
    assert.is(reference(text), null, `${label}: rejected (${error.message}) input the reference accepts`);
    return 'error';
  }
  assert.ok(Number(process.hrtime.bigint() - started) / 1e6 < 1000, `${label}: parse took over a second`);
  const expected = reference(text);
  assert.ok(expected !== null, `${label}: accepted input the reference rejects: ${JSON.stringify(text.slice(0, 200))}`);
  const kinds = ['+', '#', '-', 'd'];
  const events: Event[] = Array.from({ length: log.count }, (_, i) => [log.time[i], kinds[log.kind[i]], log.a[i], log.b[i]]);
  assert.equal(events, expected!.events, `${label}: events differ from the reference`);
  assert.is(log.header.baseTimestamp, expected!.base, `${label}: base timestamp`);
  assert.equal(log.header.stageSeeds.map((s) => s.seed), expected!.seeds, `${label}: seeds`);
  return 'valid';
}

/** Characters that matter to the format, mostly. */
const ALPHABET = '0123456789 +#-d\n\r\t"\\()x.e:';

function corrupt(rng: Rng, text: string): string {
  const chars = [...text];
  const edits = 1 + rng.int(4);
  for (let e = 0; e < edits; e++) {
    const at = rng.int(chars.length + 1);
    const c = rng.next() < 0.9 ? ALPHABET[rng.int(ALPHABET.length)] : String.fromCharCode(rng.int(256));
    switch (rng.int(4)) {
      case 0: chars[at] = c; break; // replace
      case 1: chars.splice(at, 0, c); break; // insert
      case 2: chars.splice(at, 1); break; // delete
      case 3: { // swap two lines (times out of order, a header after events)
        const lines = chars.join('').split('\n');
        const i = rng.int(lines.length);
        const j = rng.int(lines.length);
        [lines[i], lines[j]] = [lines[j], lines[i]];
        chars.splice(0, chars.length, ...lines.join('\n'));
      }
    }
  }
  return chars.join('');
}

test('fuzz: corruptions of a Mahimahi log and of a linkshell log agree with the reference', () => {
  const rng = createRng('link-log-fuzz');
  const outcomes = { valid: 0, error: 0 };
  for (let round = 0; round < 4000; round++) {
    const source = round % 2 === 0 ? MAHIMAHI : OURS;
    outcomes[check(corrupt(rng, source), `round ${round}`)]++;
  }
  // Both outcomes are exercised, so neither branch of check() is dead.
  assert.ok(outcomes.valid > 200 && outcomes.error > 200, JSON.stringify(outcomes));
});

test('fuzz: random bytes', () => {
  const rng = createRng('link-log-fuzz-bytes');
  for (let round = 0; round < 3000; round++) {
    const text = Array.from({ length: rng.int(60) }, () => (rng.next() < 0.85 ? ALPHABET[rng.int(ALPHABET.length)] : String.fromCharCode(rng.int(256)))).join('');
    check(text, `bytes round ${round}`);
  }
});

test('the unmodified inputs parse', () => {
  assert.is(check(MAHIMAHI, 'mahimahi'), 'valid');
  assert.is(check(OURS, 'ours'), 'valid');
});

test.run();
