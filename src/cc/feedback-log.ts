// A feedback log: what a rate controller was told, in order (every packet
// sent and every feedback report), written as text that a native program
// reads as easily as we do. It lets one recorded sequence be replayed into
// several controllers open-loop (ours and a reference implementation built
// as a test harness, test/reference-impl/) and their target rates compared
// step by step.
//
// Format, one event a line, integers only (times in microseconds):
//   O <initial bit/s> <min bit/s> <max bit/s>          first line: the options
//   S <send time> <sequence> <bytes>                   a packet sent
//   F <now> <n> <seq> <arrival> ... <seq> <arrival>    a report: n packets, arrival -1 = not received
// Lines starting with # are comments.
import type { FeedbackReport, RateController, RateControllerModule, RateControllerOptions } from './controller.ts';

export type FeedbackEvent =
  | { readonly kind: 'sent'; readonly timeUs: number; readonly sequence: number; readonly sizeBytes: number }
  | { readonly kind: 'feedback'; readonly timeUs: number; readonly packets: readonly { readonly sequence: number; readonly arrivalUs: number | undefined }[] };

export interface FeedbackLog {
  readonly options: RateControllerOptions;
  readonly events: FeedbackEvent[];
}

const us = (ms: number) => Math.round(ms * 1000);

/**
 * `module` with every controller it creates recording into a log of its own
 * (`logs`, in creation order: flow 0's first in a case run).
 */
export function recordingModule(module: RateControllerModule, logs: FeedbackLog[]): RateControllerModule {
  return {
    name: module.name,
    createController(options): RateController {
      const inner = module.createController(options);
      const log: FeedbackLog = { options, events: [] };
      logs.push(log);
      return {
        name: inner.name,
        targetBitrate: () => inner.targetBitrate(),
        onPacketSent(packet) {
          log.events.push({ kind: 'sent', timeUs: us(packet.sendTimeMs), sequence: packet.sequence, sizeBytes: packet.sizeBytes });
          inner.onPacketSent(packet);
        },
        onFeedback(report, nowMs) {
          const packets = report.packets.map((p) => ({ sequence: p.sequence, arrivalUs: p.arrivalTimeMs === undefined ? undefined : us(p.arrivalTimeMs) }));
          log.events.push({ kind: 'feedback', timeUs: us(nowMs), packets });
          inner.onFeedback(report, nowMs);
        },
      };
    },
  };
}

export function formatFeedbackLog(log: FeedbackLog): string {
  const { initialBitrate, minBitrate, maxBitrate } = log.options;
  const lines = [`O ${Math.round(initialBitrate)} ${Math.round(minBitrate)} ${Math.round(maxBitrate)}`];
  for (const e of log.events) {
    if (e.kind === 'sent') lines.push(`S ${e.timeUs} ${e.sequence} ${e.sizeBytes}`);
    else lines.push(`F ${e.timeUs} ${e.packets.length}${e.packets.map((p) => ` ${p.sequence} ${p.arrivalUs ?? -1}`).join('')}`);
  }
  return lines.join('\n') + '\n';
}

/** Parses a log; a malformed line throws naming `source`, the line number and the line. */
export function parseFeedbackLog(text: string, source: string): FeedbackLog {
  let options: RateControllerOptions | undefined;
  const events: FeedbackEvent[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '' || line.startsWith('#')) return;
    const bad = () => new Error(`${source}:${i + 1}: not a feedback log line: ${JSON.stringify(line.slice(0, 80))}`);
    const [kind, ...fields] = line.trim().split(/\s+/);
    const n = fields.map(Number);
    if (!n.every(Number.isInteger)) throw bad();
    if (kind === 'O' && n.length === 3 && options === undefined) options = { initialBitrate: n[0]!, minBitrate: n[1]!, maxBitrate: n[2]! };
    else if (kind === 'S' && n.length === 3 && options !== undefined) events.push({ kind: 'sent', timeUs: n[0]!, sequence: n[1]!, sizeBytes: n[2]! });
    else if (kind === 'F' && n.length >= 2 && n.length === 2 + 2 * n[1]! && options !== undefined) {
      const packets = [];
      for (let k = 0; k < n[1]!; k++) packets.push({ sequence: n[2 + 2 * k]!, arrivalUs: n[3 + 2 * k]! < 0 ? undefined : n[3 + 2 * k]! });
      events.push({ kind: 'feedback', timeUs: n[0]!, packets });
    } else throw bad();
  });
  if (options === undefined) throw new Error(`${source}: no options line (O INITIAL MIN MAX)`);
  return { options, events };
}

export interface ReplayStep {
  /** The report's time, µs. */
  readonly timeUs: number;
  /** The controller's target after the report, bit/s. */
  readonly bitrate: number;
}

/**
 * Replays the log into a fresh controller of `module`: its target after each
 * report (and `afterReport`, if given, called with the controller then).
 */
export function replayFeedbackLog<C extends RateController>(log: FeedbackLog, module: { createController(options: RateControllerOptions): C }, afterReport?: (controller: C) => void): ReplayStep[] {
  const controller = module.createController(log.options);
  const steps: ReplayStep[] = [];
  for (const e of log.events) {
    if (e.kind === 'sent') {
      controller.onPacketSent({ sequence: e.sequence, sizeBytes: e.sizeBytes, sendTimeMs: e.timeUs / 1000 });
      continue;
    }
    const report: FeedbackReport = { packets: e.packets.map((p) => ({ sequence: p.sequence, arrivalTimeMs: p.arrivalUs === undefined ? undefined : p.arrivalUs / 1000 })) };
    controller.onFeedback(report, e.timeUs / 1000);
    steps.push({ timeUs: e.timeUs, bitrate: controller.targetBitrate() });
    afterReport?.(controller);
  }
  return steps;
}
