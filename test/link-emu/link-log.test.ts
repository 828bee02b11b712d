import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LinkLogWriter, formatLinkLogHeader, formatLogEvent, parseLinkLog, shellQuote } from '../../src/link-emu/link-log.ts';
import { createRng } from '../../src/common/random.ts';

const header = {
  linkName: 'Uplink',
  traceName: 'ATT-LTE-driving.up',
  logName: 'up.log',
  commandLine: ['mm-link', 'ATT-LTE-driving.up', "it's"],
  queue: 'droptail [packets=20]',
  initTimestamp: 1796008879961,
  baseTimestamp: 40,
};

test('the header is written as mm-link writes it', () => {
  assert.is(
    formatLinkLogHeader(header),
    "# mahimahi mm-link (Uplink) [ATT-LTE-driving.up] > up.log\n# command line: 'mm-link' 'ATT-LTE-driving.up' 'it'\\''s'\n# queue: droptail [packets=20]\n# init timestamp: 1796008879961\n# base timestamp: 40\n",
  );
  assert.is(shellQuote(''), "''");
});

test('written logs parse back to the same header and events', () => {
  let text = '';
  const writer = new LinkLogWriter((c) => (text += c), header, 64);
  writer.arrival(105, 1237);
  writer.opportunity(110, 1504);
  writer.departure(110, 1237, 5);
  writer.drop(111, 2, 3000);
  writer.close();
  assert.throws(() => writer.arrival(200, 1), /after close/);
  const log = parseLinkLog(text, 'x.log');
  assert.is(log.header.linkName, 'Uplink');
  assert.is(log.header.traceName, 'ATT-LTE-driving.up');
  assert.is(log.header.queue, 'droptail [packets=20]');
  assert.is(log.header.initTimestamp, 1796008879961);
  assert.is(log.header.baseTimestamp, 40);
  assert.equal(Array.from({ length: log.count }, (_, i) => formatLogEvent(log, i)), ['105 + 1237', '110 # 1504', '110 - 1237 5', '111 d 2 3000']);
});

test('CRLF line ends, blank lines and a missing final newline are accepted', () => {
  const log = parseLinkLog('# base timestamp: 3\r\n\r\n5 + 100\r\n6 # 1504', 'crlf.log');
  assert.is(log.count, 2);
  assert.is(log.header.baseTimestamp, 3);
});

test('malformed lines are errors naming the source and line', () => {
  const cases: Array<[string, RegExp]> = [
    ['5 + 100\n6 x 3\n', /bad\.log:2: unknown event kind "x"/],
    ['5 + 100 7\n', /bad\.log:1: a "\+" line has 3 fields/],
    ['5 - 100\n', /bad\.log:1: a "-" line has 4 fields/],
    ['-5 + 100\n', /bad\.log:1: time is not a non-negative integer/],
    ['5 + 1e3\n', /bad\.log:1: field is not a non-negative integer/],
    ['5\n', /bad\.log:1: expected/],
    ['5  + 100\n', /bad\.log:1:/],
  ];
  for (const [text, pattern] of cases) assert.throws(() => parseLinkLog(text, 'bad.log'), pattern, JSON.stringify(text));
});

test('fuzz: random bytes and mutations give a parsed log or a LinkLogParseError, never a crash', () => {
  const rng = createRng('log-fuzz');
  const seed = '# mahimahi mm-link (Uplink) [t] > l\n# base timestamp: 4\n5 + 100\n6 # 1504\n6 - 100 1\n7 d 1 50\n';
  const alphabet = '0123456789 +#-d\n\r\t#xe.';
  for (let round = 0; round < 3000; round++) {
    let text: string;
    if (round % 2 === 0) {
      const chars = [...seed];
      const edits = 1 + rng.int(4);
      for (let e = 0; e < edits; e++) chars[rng.int(chars.length)] = alphabet[rng.int(alphabet.length)];
      text = chars.join('');
    } else {
      text = Array.from({ length: rng.int(80) }, () => String.fromCharCode(rng.int(256))).join('');
    }
    try {
      const log = parseLinkLog(text, 'fuzz.log');
      for (let i = 0; i < log.count; i++) {
        assert.ok(Number.isInteger(log.time[i]) && log.time[i] >= 0);
        assert.ok(log.kind[i] <= 3);
      }
    } catch (error) {
      assert.is((error as Error).name, 'LinkLogParseError', `unexpected ${String(error)} for ${JSON.stringify(text)}`);
    }
  }
});

test.run();
