// Clean shutdown on SIGINT, SIGTERM and SIGHUP. A live command watches for
// them as the first thing it does, so that a signal at any later moment (while
// it opens its inputs, say) is seen: the first such signal asks the command to
// stop, which it then does with its records completed; a second one while it
// is still stopping runs the command's last words (writing its end record) and
// exits at once with 128 + the signal's number. An exception no code caught
// (a bug in a socket or timer callback) also gets the last words, then one
// line on stderr and exit status 1. Signals that came while the
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
  /** What to do, synchronously, before a second signal or an uncaught exception exits the process (the last one set counts). */
  beforeForcedExit(lastWords: (reason: string, error?: unknown) => void): void;
  /** Removes the handlers. */
  remove(): void;
}

/** `program` names the command in the line printed for an uncaught exception. */
export function watchStopSignals(program: string): StopSignals {
  let received: NodeJS.Signals | undefined;
  let resolveFirst!: (signal: NodeJS.Signals) => void;
  const first = new Promise<NodeJS.Signals>((resolve) => {
    resolveFirst = resolve;
  });
  let lastWords: ((reason: string, error?: unknown) => void) | undefined;
  const exitAfter = (status: number, reason: string, error?: unknown) => {
    try {
      lastWords?.(reason, error);
    } finally {
      process.exit(status);
    }
  };
  const listener = (signal: NodeJS.Signals) => {
    if (received === undefined) {
      received = signal;
      resolveFirst(signal);
      return;
    }
    exitAfter(128 + (constants.signals[signal] ?? 0), `signal ${signal} (forced)`);
  };
  const uncaught = (error: unknown) => {
    process.stderr.write(`${program}: uncaught error: ${(error instanceof Error ? error.message : String(error)).replace(/\s*\n\s*/g, '; ')}\n`);
    exitAfter(1, 'error', error);
  };
  for (const s of SIGNALS) process.on(s, listener);
  process.on('uncaughtException', uncaught);
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
      process.off('uncaughtException', uncaught);
    },
  };
}
