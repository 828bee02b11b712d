// `salsify send` and `salsify receive` end cleanly on SIGINT, SIGTERM and SIGHUP,
// their records complete, even when the signal comes while the program is still
// loading. Imported first by bin/salsify.js: until the command installs its own
// handlers (src/salsify/live/stop-signals.ts takes these signals over), a stop
// signal is kept here instead of killing the process. Other commands keep the
// default action.
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];

if (process.argv[2] === 'send' || process.argv[2] === 'receive') {
  const signals = [];
  const keep = (signal) => signals.push(signal);
  for (const s of SIGNALS) process.on(s, keep);
  globalThis[Symbol.for('salsify.earlyStopSignals')] = {
    signals,
    release() {
      for (const s of SIGNALS) process.off(s, keep);
    },
  };
}
