import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LinkLogParseError, LinkLogWriter, formatLinkLogHeader, formatLogEvent, parseLinkLog, requireEvents, shellQuote } from '../../src/link-emu/link-log.ts';
import { linkLogStats } from '../../src/link-emu/log-stats.ts';

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

test('a command-line argument with line breaks (sh -c or node -e scripts) keeps the header one line per field, and the log parses', () => {
  assert.is(shellQuote('a\nb\r'), "'a'$'\\n''b'$'\\r'''");
  let text = '';
  const writer = new LinkLogWriter((c) => (text += c), { ...header, commandLine: ['linkshell', '--', 'node', '-e', "console.log(1)\nconsole.log('2')"] }, 64);
  writer.arrival(105, 100);
  writer.close();
  const log = parseLinkLog(text, 'x.log');
  assert.is(log.count, 1);
  assert.is(log.header.commandLineText, "'linkshell' '--' 'node' '-e' 'console.log(1)'$'\\n''console.log('\\''2'\\'')'");
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

test('malformed lines are errors naming the source, line, field and value', () => {
  const cases: Array<[string, RegExp]> = [
    ['5 + 100\n6 x 3\n', /^bad\.log:2: kind "x" is not an event kind/],
    ['5 + 100 7\n', /^bad\.log:1: a "\+" line has 3 fields/],
    ['5 - 100\n', /^bad\.log:1: a "-" line has 4 fields/],
    ['-5 + 100\n', /^bad\.log:1: time "-5" is not a non-negative integer/],
    ['5 + 1e3\n', /^bad\.log:1: size "1e3" is not a non-negative integer/],
    ['5\n', /^bad\.log:1: expected/],
    ['5  + 100\n', /^bad\.log:1:/],
    ['7 + 100\n5 # 1504\n', /^bad\.log:2: time "5" is earlier than the previous event's \(7\)/],
    ['5 + 0\n', /^bad\.log:1: size "0" must be at least 1/],
    ['5 # 0\n', /^bad\.log:1: mtu "0" must be at least 1/],
    ['5 - 100 6\n', /^bad\.log:1: delay "6" is more than the departure time 5/],
    ['5 d 0 0\n', /^bad\.log:1: packets "0" must be at least 1/],
    ['5 d 3 2\n', /^bad\.log:1: bytes "2" is fewer than the 3 packets dropped/],
    ['5 + 99999999999999999\n', /^bad\.log:1: size "99999999999999999" is not a non-negative integer/],
    ['# base timestamp: -3\n5 + 1\n', /^bad\.log:1: base timestamp "-3" is not a non-negative integer/],
    ['# init timestamp: soon\n', /^bad\.log:1: init timestamp "soon" is not a non-negative integer/],
    ['# mahimahi mm-link Uplink\n', /^bad\.log:1: title "Uplink" is not/],
    ['# seed of stage 0 (link): 4711\n', /^bad\.log:1: seed line .* is not "# seed of stage N/],
    ['# seed of stage 0 (warp): "1"\n', /^bad\.log:1: seed line/],
  ];
  for (const [text, pattern] of cases) {
    try {
      parseLinkLog(text, 'bad.log');
      assert.unreachable(`accepted ${JSON.stringify(text)}`);
    } catch (error) {
      assert.instance(error, LinkLogParseError);
      assert.match((error as Error).message, pattern, JSON.stringify(text));
      assert.not.match((error as Error).message, /\n/);
    }
  }
});

test('an empty or comments-only log has no events: requireEvents and the statistics refuse it', () => {
  for (const text of ['', '\n\n', '# mahimahi mm-link (Uplink) [t] > l\n# base timestamp: 4\n']) {
    const log = parseLinkLog(text, 'empty.log');
    assert.is(log.count, 0);
    assert.throws(() => requireEvents(log), /^empty\.log: no events/);
    assert.throws(() => linkLogStats(log), /^empty\.log: no events/);
  }
});

test('seed lines: written by the writer, read back into the header', () => {
  const chunks: string[] = [];
  const writer = new LinkLogWriter((c) => chunks.push(c));
  writer.stageSeed({ stage: 0, kind: 'link', seed: '7/uplink/stage0-link' });
  writer.stageSeed({ stage: 2, kind: 'loss', seed: 'a "quoted" one\n' });
  writer.arrival(3, 100);
  writer.close();
  const text = chunks.join('');
  assert.is(text.split('\n')[0], '# seed of stage 0 (link): "7/uplink/stage0-link"');
  const log = parseLinkLog(text, 's.log');
  assert.equal(log.header.stageSeeds, [{ stage: 0, kind: 'link', seed: '7/uplink/stage0-link' }, { stage: 2, kind: 'loss', seed: 'a "quoted" one\n' }]);
  assert.is(log.count, 1);
});

test.run();
