// The one path model: a plain description of an emulated path, and the one
// function that turns a direction of it into the stages a Chain crosses. The
// simulator (src/salsify/sim-runner.ts, through src/net/sim-network.ts) and
// linkshell (src/linkshell/direction.ts) both build their chains here, so a
// simulated path and a live one are the same path.
//
// The order is Mahimahi's nesting. Every Mahimahi shell makes a network
// namespace and runs the rest of the command line inside it; its uplink ferry
// reads what the inner namespace sends and writes it to its own (outer) side,
// its downlink ferry does the reverse (src/packet/packetshell.cc). In
//
//   mm-delay D  mm-loss uplink|downlink P  mm-onoff uplink|downlink ON OFF  mm-link UP DOWN  --  app
//
// the application is innermost, so the outermost shell's stage is crossed
// first on the way in (downlink, toward the application) and last on the way
// out (uplink, from the application):
//
//                          outside (the Internet)
//                          |                  ^
//                          | downlink         | uplink
//   +----------------------v------------------|------------------+
//   | mm-delay             delay              delay              |
//   |  +-------------------v------------------|---------------+  |
//   |  | mm-loss           loss               loss            |  |
//   |  |  +----------------v------------------|------------+  |  |
//   |  |  | mm-onoff       on/off             on/off       |  |  |
//   |  |  |  +-------------v------------------|---------+  |  |  |
//   |  |  |  | mm-link     link               link      |  |  |  |
//   |  |  |  |  +----------v------------------|------+  |  |  |  |
//   |  |  |  |  |          application (inside)     |  |  |  |  |
//   |  |  |  |  +-----------------------------------+  |  |  |  |
//   |  |  |  +-----------------------------------------+  |  |  |
//   |  |  +-----------------------------------------------+  |  |
//   |  +-----------------------------------------------------+  |
//   +-----------------------------------------------------------+
//
//   downlink (outside -> inside): delay, loss, on/off, link
//   uplink   (inside -> outside): link, on/off, loss, delay
//
// On/off (mm-onoff) sits just outside mm-link: it models the access link
// going away and coming back, so it is the shell nearest the link; loss and
// propagation delay are further out. A datagram lost (by loss or an off
// period) on the way in never takes link capacity; on the way out it has
// already crossed the link, as in Mahimahi.
//
// ("link" is mm-link: its queue, then its trace-driven delivery.)
//
// Randomness: Chain forks its generator per stage as `stage${i}-${kind}`, i
// being the index in the list built here, and the simulator's network
// (net/sim-network.ts) and linkshell's session both fork the run's seed by the
// direction's name ('uplink', 'downlink'); so one seed gives one set of draws,
// simulated or live (a linkshell log records each random stage's seed, see
// link-log.ts).

import type { StageSpec } from './chain.ts';
import type { LinkEventSink } from './link.ts';
import type { Trace } from './trace.ts';

export type PathDirectionName = 'uplink' | 'downlink';

/**
 * An intermittent direction: exponentially distributed on and off periods
 * (mm-onoff), or periods of exactly these lengths (`periodic`, mm-intermittent);
 * datagrams arriving while off are lost. One of the two times may be 0
 * (always off, always on), as both tools accept.
 */
export interface OnOffSpec {
  readonly meanOnMs: number;
  readonly meanOffMs: number;
  /** Whether the direction starts on (default true, as both tools do). */
  readonly startOn?: boolean;
  /** mm-intermittent: fixed on and off times instead of exponential ones. */
  readonly periodic?: boolean;
}

/** One direction of a path, as plain data. Absent, zero or null impairments are left out. */
/** Where a direction's loss stage sits (see PathSpec.lossAt). */
export type LossPlace = 'entry' | 'delivery';
export const LOSS_PLACES: readonly LossPlace[] = Object.freeze(['entry', 'delivery']);

export interface PathDirectionSpec {
  /** mm-link's trace for this direction. */
  readonly trace: Trace;
  /** mm-link queue name (default infinite) and its arguments (e.g. "packets=256"). */
  readonly queue?: string;
  readonly queueArgs?: string;
  /** Bytes per delivery opportunity (default 1504). */
  readonly mtu?: number;
  /** mm-link --once: no deliveries after the trace ends. */
  readonly once?: boolean;
  /** One-way propagation delay (ms), as mm-delay. */
  readonly delayMs?: number;
  /** Independent loss probability, as mm-loss. */
  readonly loss?: number;
  /**
   * Where the loss stage sits: 'entry' (default, mm-loss's place in the
   * nesting below) or 'delivery', right after the link in the direction of
   * travel, so that a lost datagram has used its delivery opportunity (as
   * Cellsim's loss at delivery, the Salsify paper's wifi scenario).
   */
  readonly lossAt?: LossPlace;
  readonly onOff?: OnOffSpec | null;
  /** Where the trace's time zero lies on the scheduler's clock (default: when the chain is built). */
  readonly baseTimestamp?: number;
  /** Receives the link's mm-link log events. */
  readonly events?: LinkEventSink;
  /** Drop an arriving packet that would wait longer than this, ms (the simulator's time-bounded queue; not an mm-link option). */
  readonly maxWaitMs?: number;
}

export interface PathSpec {
  /** inside (the application) -> outside */
  readonly uplink: PathDirectionSpec;
  /** outside -> inside (the application) */
  readonly downlink: PathDirectionSpec;
}

/** The shells of a path from the outermost to the innermost (the application is inside the last). */
export const SHELL_NESTING = ['delay', 'loss', 'onoff', 'link'] as const;

/** The stages of one direction of a path, in the order a datagram crosses them. */
export function pathStages(direction: PathDirectionName, spec: PathDirectionSpec): StageSpec[] {
  const outermostFirst: StageSpec[] = [];
  for (const shell of SHELL_NESTING) {
    switch (shell) {
      case 'delay':
        if ((spec.delayMs ?? 0) > 0) outermostFirst.push({ kind: 'delay', ms: spec.delayMs! });
        break;
      case 'loss':
        if ((spec.loss ?? 0) > 0) outermostFirst.push({ kind: 'loss', rate: spec.loss! });
        break;
      case 'onoff':
        if (spec.onOff) outermostFirst.push({ kind: 'onoff', meanOnMs: spec.onOff.meanOnMs, meanOffMs: spec.onOff.meanOffMs, startOn: spec.onOff.startOn, ...(spec.onOff.periodic ? { periodic: true } : {}) });
        break;
      case 'link':
        outermostFirst.push({
          kind: 'link',
          trace: spec.trace,
          queue: spec.queue,
          queueArgs: spec.queueArgs,
          mtu: spec.mtu,
          once: spec.once,
          baseTimestamp: spec.baseTimestamp,
          events: spec.events,
          ...(spec.maxWaitMs !== undefined ? { maxWaitMs: spec.maxWaitMs } : {}),
        });
        break;
    }
  }
  const crossed = direction === 'downlink' ? outermostFirst : outermostFirst.reverse();
  if (spec.lossAt !== 'delivery') return crossed;
  const loss = crossed.findIndex((s) => s.kind === 'loss');
  if (loss < 0) return crossed;
  const [stage] = crossed.splice(loss, 1);
  crossed.splice(crossed.findIndex((s) => s.kind === 'link') + 1, 0, stage!);
  return crossed;
}
