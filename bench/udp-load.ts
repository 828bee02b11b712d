// The traffic of bench/relay-cpu.ts (not a benchmark itself), as a command,
// so that it can run inside an mm-link shell as well as beside linkshell:
//
//   node --import tsx bench/udp-load.ts HOST PORT PPS SIZE START_AT DURATION_MS [WARMUP_MS]
//
// waits until START_AT (ms since the epoch, Date.now()), then sends SIZE-byte
// datagrams to HOST:PORT at PPS for DURATION_MS (every millisecond it sends
// what the rate owes by then: exact on average whatever the timer jitter),
// and prints {"sent", "sentAfterWarmup", "sendErrors", "lateStartMs"} as one
// JSON line: sentAfterWarmup counts the datagrams sent once WARMUP_MS
// (default 0) had passed since it started sending.
import { createSocket } from 'node:dgram';

const [host, portText, ppsText, sizeText, startText, durationText, warmupText = '0'] = process.argv.slice(2);
const port = Number(portText), pps = Number(ppsText), size = Number(sizeText), startAt = Number(startText), durationMs = Number(durationText), warmupMs = Number(warmupText);
if (!host || ![port, pps, size, startAt, durationMs, warmupMs].every((n) => Number.isFinite(n) && n >= 0)) {
  console.error('usage: udp-load.ts HOST PORT PPS SIZE START_AT_EPOCH_MS DURATION_MS [WARMUP_MS]');
  process.exit(2);
}
const socket = createSocket('udp4');
const payload = Buffer.alloc(size, 0x5a);
let sent = 0;
/** `sent` when the warm-up ended (undefined before). */
let sentAtWarmupEnd: number | undefined;
let sendErrors = 0;
socket.on('error', () => sendErrors++);
const send = () => {
  socket.send(payload, port, host, (error) => {
    if (error) sendErrors++;
  });
  sent++;
};
setTimeout(() => {
  const lateStartMs = Date.now() - startAt;
  const t0 = performance.now();
  const timer = setInterval(() => {
    const elapsed = Math.min(performance.now() - t0, durationMs);
    if (sentAtWarmupEnd === undefined && elapsed >= warmupMs) sentAtWarmupEnd = sent;
    const owed = Math.floor((elapsed * pps) / 1000) - sent;
    for (let i = 0; i < owed; i++) send();
    if (elapsed >= durationMs) {
      clearInterval(timer);
      // Let the last sends complete before closing.
      setTimeout(() => {
        console.log(JSON.stringify({ sent, sentAfterWarmup: sent - (sentAtWarmupEnd ?? sent), sendErrors, lateStartMs }));
        socket.close();
      }, 50);
    }
  }, 1);
}, Math.max(0, startAt - Date.now()));
