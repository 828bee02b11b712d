// linkshell's log files: a file that cannot be opened or written is one error naming it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { LinkLogFile, LogFileError } from '../../src/linkshell/log-file.ts';
import { work } from './helpers.ts';

const header = { linkName: 'Uplink', traceName: 't', logName: 'l', commandLine: ['linkshell'], queue: 'infinite', initTimestamp: 0, baseTimestamp: 0 };

test('a full disk (/dev/full) at the first flush: a LogFileError naming the file, not a raw ENOSPC', () => {
  const file = new LinkLogFile('/dev/full', header);
  file.writer.arrival(1, 100);
  try {
    file.flush();
    assert.unreachable('the write succeeded');
  } catch (error) {
    assert.instance(error, LogFileError);
    assert.is((error as Error).message, 'cannot write log file /dev/full: no space left on device');
  }
  file.close(); // what failed is not written again
});

test('a directory, or a missing directory: refused when opened', () => {
  assert.throws(() => new LinkLogFile(work, header), (e: Error) => e instanceof LogFileError && e.message === `cannot write log file ${work}: is a directory`);
  const missing = join(work, 'missing', 'x.log');
  assert.throws(() => new LinkLogFile(missing, header), (e: Error) => e instanceof LogFileError && e.message === `cannot write log file ${missing}: no such directory`);
});

test.run();
