// Public entry point of the link emulator: traces, queues, the trace-driven
// link, the other Mahimahi stages, path chains, mm-link logs and replay.
export type { Trace } from './trace.ts';
export { traceMeanRateMbps } from './trace.ts';
export { parseTrace, TraceFormatError } from './trace-parse.ts';
export { formatTrace, assertValidTrace } from './trace-format.ts';
export { loadTrace, loadTraceAsync, writeTrace, openTrace, resolveTraceName, traceCandidates, type TraceLookupOptions } from './trace-files.ts';
export { constantRateTrace, poissonTrace, onOffTrace, cellularTrace } from './trace-generators.ts';
export type { PacketQueue, QueuedPacket, DropListener } from './queue.ts';
export { createQueue, parseQueueArgs, QUEUE_KINDS, QueueConfigError } from './queue-factory.ts';
export { TraceLink, PacketTooLargeError, DEFAULT_MTU, type LinkOptions, type LinkEventSink, type DepartureListener } from './link.ts';
export { IndependentLoss, GilbertElliottLoss, OnOffProcess, type GilbertElliottParams } from './impairments.ts';
export { Chain, type StageSpec, type StageSeed, type Scheduler, type DropCause, type ChainCounters } from './chain.ts';
export { pathStages, SHELL_NESTING, type PathSpec, type PathDirectionSpec, type PathDirectionName, type OnOffSpec } from './path.ts';
export { LinkLogWriter, parseLinkLog, requireEvents, formatLinkLogHeader, formatLogEvent, formatStageSeed, LogEventKind, LinkLogParseError, type LinkLogHeader, type ParsedLinkLog } from './link-log.ts';
export { replay, arrivalsFromLog, parseArrivalList, lastLogTime, type Arrivals, type ReplayOptions } from './replay.ts';
export { linkLogStats, rankQuantile, type LinkLogStats } from './log-stats.ts';
export { createRng, type Rng } from '../common/random.ts';
