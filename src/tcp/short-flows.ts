// Short TCP flows as RFC 8867 5.7 states them: "each short TCP flow is
// modeled as a sequence of file downloads interleaved with idle periods. Not
// all short TCP flows start at the same time: 2 of them start in the ON state
// while the rest of the 8 flows start in an OFF state", with the downloads of
// RFC 8868 6.1: "30 connections start simultaneously fetching small (30-50
// KB) amounts of data", and "the idle period between bursts of starting a
// group of TCP flows is typically derived from an exponential distribution
// with the mean value of 10 seconds".
//
// So one FlowFactory is one such short TCP flow: a burst of
// `connectionsPerBurst` (30) new connections at once, each of a size drawn
// uniformly from [minBytes, maxBytes] (30 000 to 50 000 bytes: KB read as
// 1000 bytes; ns-3's rmcat uses 1024), then, once all of them are
// acknowledged, an idle period drawn from an exponential distribution of mean
// `meanIdleMs` (10 s), then the next burst. `startOn` says whether it starts
// with a burst (ON) or with an idle period (OFF); RFC 8867 5.7 runs ten of
// them, two with startOn. Sizes and idle periods are drawn from the flow's
// seed (FlowOptions.seed). `maxBursts` ends the flow after that many
// bursts (libwebrtc's 5.7: one download each). pause() holds the
// connections' new data and the next burst until resume().
import type { FlowOptions } from '../cc/flow.ts';
import { createRng } from '../common/random.ts';
import type { TimerHandle } from '../common/timer.ts';
import type { EndpointContext } from '../net/endpoint.ts';
import type { TcpSender } from './sender.ts';
import { checkTcpFlowOptions, TcpFlowEnds, type TcpFlow, type TcpFlowFactory, type TcpFlowOptions } from './tcp-flow.ts';

export interface TcpShortFlowsOptions extends TcpFlowOptions {
  /** Connections opened together in each burst (default 30, RFC 8868 6.1). */
  readonly connectionsPerBurst?: number;
  /** Smallest and largest download, bytes (default 30 000 and 50 000, RFC 8868 6.1). */
  readonly minBytes?: number;
  readonly maxBytes?: number;
  /** Mean of the exponential idle period between bursts, ms (default 10 000). */
  readonly meanIdleMs?: number;
  /** Start with a burst (ON) rather than an idle period (OFF). Default false. */
  readonly startOn?: boolean;
  /** At most this many bursts, then nothing (libwebrtc's 5.7: one download per flow). Default: no limit. */
  readonly maxBursts?: number;
}

export const RFC8868_SHORT_FLOWS = { connectionsPerBurst: 30, minBytes: 30_000, maxBytes: 50_000, meanIdleMs: 10_000 } as const;

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a whole number >= 1, got ${value}`);
  return value;
}

export function tcpShortFlows(options: TcpShortFlowsOptions): TcpFlowFactory {
  checkTcpFlowOptions(options);
  const perBurst = positiveInteger('connectionsPerBurst', options.connectionsPerBurst ?? RFC8868_SHORT_FLOWS.connectionsPerBurst);
  const minBytes = positiveInteger('minBytes', options.minBytes ?? RFC8868_SHORT_FLOWS.minBytes);
  const maxBytes = positiveInteger('maxBytes', options.maxBytes ?? RFC8868_SHORT_FLOWS.maxBytes);
  if (maxBytes < minBytes) throw new RangeError(`maxBytes (${maxBytes}) must not be below minBytes (${minBytes})`);
  const meanIdleMs = options.meanIdleMs ?? RFC8868_SHORT_FLOWS.meanIdleMs;
  if (!(meanIdleMs > 0) || !Number.isFinite(meanIdleMs)) throw new RangeError(`meanIdleMs must be a finite number of ms > 0, got ${meanIdleMs}`);
  const maxBursts = options.maxBursts === undefined ? Infinity : positiveInteger('maxBursts', options.maxBursts);
  return {
    name: `tcp-short-${options.cc}`,
    create(sender: EndpointContext, receiver: EndpointContext, flow: FlowOptions): TcpFlow {
      const ends = new TcpFlowEnds(sender, receiver, options);
      const rng = createRng(flow.seed).fork('tcp-short-flows');
      const sizes = rng.fork('sizes');
      const idle = rng.fork('idle');
      const active = new Set<TcpSender>();
      let timer: TimerHandle | undefined;
      let started = false;
      let stopped = false;
      let paused = false;
      let burstDue = false;
      let bursts = 0;

      const burst = () => {
        if (stopped || bursts >= maxBursts) return;
        if (paused) {
          burstDue = true;
          return;
        }
        bursts++;
        for (let i = 0; i < perBurst; i++) {
          const bytes = minBytes + sizes.int(maxBytes - minBytes + 1);
          const connection: TcpSender = ends.open(bytes, () => {
            active.delete(connection);
            if (active.size === 0) idlePeriod();
          });
          active.add(connection);
        }
      };
      const idlePeriod = () => {
        if (stopped || bursts >= maxBursts) return;
        timer = sender.setTimer(idle.exponential(meanIdleMs), () => {
          timer = undefined;
          burst();
        });
      };

      return {
        start() {
          if (started || stopped) return;
          started = true;
          if (options.startOn) burst();
          else idlePeriod();
        },
        pause() {
          paused = true;
          for (const connection of active) connection.pause();
        },
        resume() {
          if (!paused) return;
          paused = false;
          for (const connection of active) connection.resume();
          if (burstDue) {
            burstDue = false;
            burst();
          }
        },
        stop() {
          stopped = true;
          timer?.cancel();
          timer = undefined;
          ends.close();
        },
        stats: () => ends.stats(),
      };
    },
  };
}
