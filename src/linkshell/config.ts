// What a linkshell session is started with (src/cli/linkshell-options.ts
// builds it from the command line).
import type { HostPort } from '../common/host-port.ts';
import type { LossPlace, OnOffSpec } from '../link-emu/path.ts';
import type { TimerKind } from '../net/wall-clock.ts';
import type { TraceClockStart } from './trace-clock.ts';

export const DEFAULT_MEMORY_CAP_MIB = 64;
export const DEFAULT_MAX_FLOWS = 1024;
/** How long (ms) at most the link keeps carrying what is on it after COMMAND exits by itself (--drain). */
export const DEFAULT_DRAIN_MS = 2000;
export const MAX_DRAIN_MS = 60_000;
/** The drain ends once both directions have held nothing, and taken nothing in, for this long (ms). */
export const DRAIN_QUIET_MS = 100;

export interface LinkshellConfig {
  uplinkTrace: string;
  downlinkTrace: string;
  listen: HostPort;
  connect: HostPort;
  uplinkQueue: string;
  uplinkQueueArgs: string;
  downlinkQueue: string;
  downlinkQueueArgs: string;
  once: boolean;
  mtu: number;
  delayMs: number;
  uplinkLoss: number;
  downlinkLoss: number;
  /** Where each direction's loss applies: 'entry' (mm-loss's place, the default) or 'delivery' (after the link). */
  uplinkLossAt: LossPlace;
  downlinkLossAt: LossPlace;
  /** An intermittent direction (mm-onoff), if any. */
  uplinkOnOff?: OnOffSpec;
  downlinkOnOff?: OnOffSpec;
  seed: string;
  uplinkLog?: string;
  downlinkLog?: string;
  /** Where the summary and the run's verdict go as JSON (--summary-json). */
  summaryJson?: string;
  overheadBytes: number;
  memoryCapBytes: number;
  maxSources: number;
  timer: TimerKind;
  spinMs: number;
  /**
   * After COMMAND exits by itself, how long (ms) at most the run goes on so that what is still on the link
   * arrives (--drain; 0 stops at once, as mm-link does: its event loop returns when its child ends).
   */
  drainMs: number;
  /** When the traces start (--trace-clock-start, trace-clock.ts): now, or held until the first datagram or RTP packet. */
  traceClockStart: TraceClockStart;
  /** Datagrams pass unemulated until SIGUSR1 (MAHIMAHI_PASSTHROUGH_UNTIL_SIGNAL was set; not a command-line option). */
  passthroughUntilSignal?: boolean;
  /** COMMAND and its arguments (after "--", or after the traces). */
  command?: string[];
}

/** What linkshell --netns runs with: the path's settings and the command (no relay addresses). */
export type NetnsConfig = Omit<LinkshellConfig, 'listen' | 'connect' | 'maxSources'>;

/** The link bytes a packet takes beyond its IP length in --netns: the TUN header Mahimahi counts. */
export const NETNS_OVERHEAD_BYTES = 4;
