// Clean shutdown on SIGINT, SIGTERM and SIGHUP: the first such signal asks the
// command to stop (it then flushes its records); a second one while it is
// still stopping exits at once with 128 + the signal's number.
import { constants } from 'node:os';

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** Calls `onStop` on the first stop signal; returns the function that removes the handlers. */
export function onStopSignal(onStop: (signal: NodeJS.Signals) => void): () => void {
  let received = 0;
  const listener = (signal: NodeJS.Signals) => {
    received++;
    if (received === 1) onStop(signal);
    else process.exit(128 + (constants.signals[signal] ?? 0));
  };
  for (const s of SIGNALS) process.on(s, listener);
  return () => {
    for (const s of SIGNALS) process.off(s, listener);
  };
}
