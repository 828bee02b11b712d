// The facts of a real Chromium call that say whether its figures are the
// call's or the machine's (src/results/validity.ts judges them): the camera's
// delivered frames, the encoder's, the display callbacks against Chromium's
// own count of presented frames, linkshell's departure lateness and the CPU
// pressure over the call. Pure: it reads the call's records.
import { cpuFacts, type CpuSample } from '../results/cpu-pressure.ts';
import type { RealtimeFacts } from '../results/validity.ts';

export interface CallFactsInput {
  readonly fps: number;
  readonly sender: readonly { readonly captureUs: number }[];
  readonly sent: readonly { readonly t: number }[];
  readonly receiver: readonly { readonly presented?: number }[];
  readonly linkshellOutput: string;
  readonly cpuStart: CpuSample;
  readonly cpuEnd: CpuSample;
}

/** Frames a source at `fps` should give between its first and last frame, both included. */
function framesSpanned(firstMs: number, lastMs: number, fps: number): number {
  return Math.round(((lastMs - firstMs) / 1000) * fps) + 1;
}

/** The largest departure lateness p99 (ms) in linkshell's printed summary, over its directions. */
export function linkshellLatenessP99(output: string): number | undefined {
  const row = /departure lateness[^\n]*/.exec(output)?.[0];
  if (row === undefined) return undefined;
  const values = [...row.matchAll(/p99 ([\d.]+)/g)].map((m) => Number(m[1]));
  return values.length === 0 ? undefined : Math.max(...values);
}

/** linkshell's own verdict from its summary's last line (src/linkshell/verdict.ts), when it judged the run. */
export function linkshellVerdict(output: string): string | undefined {
  const verdict = /verdict: (valid|late|kernel drops)\b/.exec(output)?.[1];
  return verdict;
}

export function callFacts(input: CallFactsInput): RealtimeFacts {
  const facts: { -readonly [K in keyof RealtimeFacts]: RealtimeFacts[K] } = { ...cpuFacts(input.cpuStart, input.cpuEnd) };
  const { sender, sent, fps } = input;
  if (sender.length > 1) facts.cameraFrames = { delivered: sender.length, asked: framesSpanned(sender[0].captureUs / 1000, sender[sender.length - 1].captureUs / 1000, fps) };
  if (sent.length > 1) facts.framesEncoded = { encoded: sent.length, asked: framesSpanned(sent[0].t, sent[sent.length - 1].t, fps) };
  const presented = input.receiver.map((r) => r.presented).filter((p): p is number => p !== undefined);
  if (presented.length > 1) facts.displayCallbacks = { seen: presented.length, presented: presented[presented.length - 1] - presented[0] + 1 };
  const lateness = linkshellLatenessP99(input.linkshellOutput);
  if (lateness !== undefined) facts.linkLatenessP99Ms = lateness;
  const verdict = linkshellVerdict(input.linkshellOutput);
  if (verdict !== undefined) facts.linkVerdict = verdict;
  return facts;
}
