// One test worker of scripts/run-tests.mjs (run under tsx, with an IPC channel): it receives test
// file paths one at a time, runs each file's uvu suites, and sends back what the file printed and
// uvu's counts for it. The files a worker runs share its process, as they would in one uvu run;
// files in different workers run at the same time.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

globalThis.UVU_DEFER = 1;
const uvu = await import('uvu');
const stdoutWrite = process.stdout.write;

/** Everything written to stdout while `run` runs (uvu's report and the tests' own prints). */
async function captured(run) {
  let text = '';
  process.stdout.write = (chunk, encoding, done) => {
    text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
    const callback = typeof encoding === 'function' ? encoding : done;
    if (callback) queueMicrotask(() => callback());
    return true;
  };
  try {
    await run();
  } finally {
    process.stdout.write = stdoutWrite;
  }
  return text;
}

/** uvu's closing counts ("Total: N", "Passed: N", "Skipped: N"), colours removed. */
function counts(output) {
  const plain = output.replace(/\x1b\[[0-9;]*m/g, '');
  const read = (label) => Number(new RegExp(`${label}:\\s+(\\d+)`).exec(plain)?.[1] ?? NaN);
  return { total: read('Total'), passed: read('Passed'), skipped: read('Skipped') };
}

/** CPU seconds used so far by this process and by its children that have ended (Linux: /proc/self/stat's cutime and cstime). */
function cpuSeconds() {
  const own = process.cpuUsage();
  let children = 0;
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').replace(/^.*\) /, '').split(' ');
    children = (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    // not Linux: the children's time is not known
  }
  return (own.user + own.system) / 1e6 + children;
}

async function runFile({ file, label }) {
  const started = process.hrtime.bigint();
  const cpuBefore = cpuSeconds();
  let loadError;
  const output = await captured(async () => {
    globalThis.UVU_QUEUE.length = 0;
    globalThis.UVU_INDEX = 0;
    globalThis.UVU_QUEUE.push([label]);
    try {
      await import(pathToFileURL(file).href);
      await uvu.exec(false);
    } catch (error) {
      loadError = error instanceof Error ? (error.stack ?? error.message) : String(error);
    }
  });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  process.send({ file, output, ms, cpuS: cpuSeconds() - cpuBefore, loadError, ...counts(output) });
}

process.on('message', (message) => void runFile(message));
process.send({ ready: true });
