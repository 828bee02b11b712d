// Clean shutdown on SIGINT, SIGTERM and SIGHUP. A live command watches for
// them as the first thing it does, so that a signal at any later moment (while
// it opens its inputs, say) is seen: the first such signal asks the command to
// stop, which it then does with its records completed; a second one while it
// is still stopping runs the command's last words (writing its end record) and
// exits at once with 128 + the signal's number. Signals that came while the
// program was still loading, kept by bin/early-stop-signals.js, count as if
// they came now.
import { constants } from 'node:os';

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
const EARLY = Symbol.for('salsify.earlyStopSignals');

interface EarlySignals {
  readonly signals: NodeJS.Signals[];
  release(): void;
}

/** The stop signals bin/early-stop-signals.js kept while the program loaded (its handlers removed). */
function takeEarlySignals(): NodeJS.Signals[] {
  const registry = globalThis as { [EARLY]?: EarlySignals };
  const early = registry[EARLY];
  if (!early) return [];
  delete registry[EARLY];
  early.release();
  return early.signals;
}

export interface StopSignals {
  /** Resolves with the first stop signal. */
  readonly first: Promise<NodeJS.Signals>;
  /** The first stop signal, once one came. */
  readonly received: NodeJS.Signals | undefined;
  /** What to do, synchronously, before a second signal exits the process (the last one set counts). */
  beforeForcedExit(lastWords: (signal: NodeJS.Signals) => void): void;
  /** Removes the handlers. */
  remove(): void;
}

export function watchStopSignals(): StopSignals {
  let received: NodeJS.Signals | undefined;
  let resolveFirst!: (signal: NodeJS.Signals) => void;
  const first = new Promise<NodeJS.Signals>((resolve) => {
    resolveFirst = resolve;
  });
  let lastWords: ((signal: NodeJS.Signals) => void) | undefined;
  const listener = (signal: NodeJS.Signals) => {
    if (received === undefined) {
      received = signal;
      resolveFirst(signal);
      return;
    }
    try {
      lastWords?.(signal);
    } finally {
      process.exit(128 + (constants.signals[signal] ?? 0));
    }
  };
  for (const s of SIGNALS) process.on(s, listener);
  for (const signal of takeEarlySignals()) listener(signal);
  return {
    first,
    get received() {
      return received;
    },
    beforeForcedExit: (words) => {
      lastWords = words;
    },
    remove: () => {
      for (const s of SIGNALS) process.off(s, listener);
    },
  };
}
