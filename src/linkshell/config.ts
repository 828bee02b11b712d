// What a linkshell session is started with (src/cli/linkshell-options.ts
// builds it from the command line).
import type { HostPort } from '../common/host-port.ts';
import type { LossPlace, OnOffSpec } from '../link-emu/path.ts';
import type { TimerKind } from '../net/wall-clock.ts';
import type { TraceClockStart } from './trace-clock.ts';

export const DEFAULT_MEMORY_CAP_MIB = 64;
export const DEFAULT_MAX_FLOWS = 1024;

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
