// Decoding the VP9 and AV1 frames a call received, for SSIM: ffmpeg (Debian's,
// built with libvpx and libdav1d) as a child process, decoding an IVF file to
// raw I420 on its stdout, with the decoders Chromium itself uses in software:
// libvpx for VP9, dav1d for AV1 (checked against Chromium's own decoding by
// test/webrtc/ffmpeg-decode.test.ts and the call's decoding checks). VP8 stays
// with our own decoder (native-vp8, quality.ts).
//
// Each picture keeps its own size (-autoscale 0: Chromium changes resolution
// during a call, and a VP9-SVC stream's layers differ in size); the showinfo
// filter reports each picture's timestamp and size on stderr, which splits the
// raw stream into pictures. -fps_mode passthrough: one output per decoded
// picture, none duplicated or dropped. A frame the decoder refuses yields no
// picture (ffmpeg goes on), so a caller matches pictures to frames by
// timestamp. stdout is paused while a picture's worth of data waits unread,
// so memory stays bounded however slowly the caller consumes.
import { spawn } from 'node:child_process';
import type { Picture } from '../codec-bridge/types.ts';
import { i420Size } from '../codec-bridge/video/i420.ts';

export type FfmpegCodec = 'vp9' | 'av1';

/** ffmpeg's decoder for each codec: the library Chromium decodes it with. */
export const FFMPEG_DECODERS: Readonly<Record<FfmpegCodec, string>> = { vp9: 'libvpx-vp9', av1: 'libdav1d' };

export interface DecodedPicture {
  /** The IVF frame timestamp it was decoded from (the file's time base). */
  readonly pts: number;
  readonly picture: Picture;
}

/** ffmpeg's arguments for decoding `ivfPath` to raw I420 on stdout. */
export function ffmpegDecodeArgs(ivfPath: string, decoder: string): string[] {
  return [
    '-hide_banner', '-nostdin', '-nostats', '-loglevel', 'info',
    '-c:v', decoder, '-i', ivfPath,
    '-an', '-autoscale', '0', '-fps_mode', 'passthrough', '-vf', 'format=yuv420p,showinfo',
    '-f', 'rawvideo', '-pix_fmt', 'yuv420p', 'pipe:1',
  ];
}

const SHOWINFO = /\[Parsed_showinfo_\d+ @ [^\]]*\]\s+n:\s*\d+\s+pts:\s*(-?\d+)\s.*?\bfmt:(\S+).*?\bs:(\d+)x(\d+)/;

/** The picture announced by one line of ffmpeg's stderr, or null for any other line. */
export function parseShowinfoLine(line: string): { pts: number; format: string; width: number; height: number } | null {
  const m = SHOWINFO.exec(line);
  return m ? { pts: Number(m[1]), format: m[2]!, width: Number(m[3]), height: Number(m[4]) } : null;
}

/** The last lines of ffmpeg's stderr that are not showinfo's, for messages. */
function errorLines(lines: readonly string[]): string {
  return lines.filter((l) => /error|invalid|failed|no such/i.test(l)).slice(-3).join(' / ');
}

/**
 * The pictures ffmpeg decodes from `ivfPath`, in decoding order. Throws (an
 * Error naming the file) when ffmpeg cannot be run or fails, or when its
 * output does not split into the pictures it announced.
 */
export async function* ffmpegDecode(
  ivfPath: string,
  codec: FfmpegCodec,
  options: { ffmpeg?: string; signal?: AbortSignal; /** Another of ffmpeg's decoders (tests compare decoders). */ decoder?: string } = {},
): AsyncGenerator<DecodedPicture> {
  const ffmpeg = options.ffmpeg ?? 'ffmpeg';
  const decoder = options.decoder ?? FFMPEG_DECODERS[codec];
  const child = spawn(ffmpeg, ffmpegDecodeArgs(ivfPath, decoder), { stdio: ['ignore', 'pipe', 'pipe'], signal: options.signal });
  const announced: { pts: number; width: number; height: number; format: string }[] = [];
  const otherLines: string[] = [];
  const chunks: Buffer[] = [];
  let buffered = 0;
  let stderrTail = '';
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  let spawnError: Error | undefined;
  let stdoutEnded = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text: string) => {
    const lines = (stderrTail + text).split(/[\r\n]/);
    stderrTail = lines.pop() ?? '';
    for (const line of lines) {
      const info = parseShowinfoLine(line);
      if (info) announced.push(info);
      else if (line.trim() !== '') otherLines.push(line.trim());
      if (otherLines.length > 200) otherLines.splice(0, 100);
    }
    notify();
  });
  child.stdout.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    buffered += chunk.length;
    // Enough waiting for the next announced picture (or more than a large one): hold ffmpeg back.
    const next = announced[0];
    if (buffered >= (next ? i420Size(next.width, next.height) : 0) + (1 << 22)) child.stdout.pause();
    notify();
  });
  child.stdout.on('end', () => {
    stdoutEnded = true;
    notify();
  });
  child.on('error', (error) => {
    spawnError = error;
    notify();
  });
  child.on('close', (code, signal) => {
    exit = { code, signal };
    const info = parseShowinfoLine(stderrTail);
    if (info) announced.push(info);
    notify();
  });
  const take = (n: number): Uint8Array => {
    const out = new Uint8Array(n);
    let filled = 0;
    while (filled < n) {
      const head = chunks[0]!;
      const used = Math.min(head.length, n - filled);
      out.set(head.subarray(0, used), filled);
      filled += used;
      if (used === head.length) chunks.shift();
      else chunks[0] = head.subarray(used);
    }
    buffered -= n;
    return out;
  };
  try {
    for (;;) {
      if (spawnError) {
        const reason = (spawnError as NodeJS.ErrnoException).code === 'ENOENT' ? `${ffmpeg} not found (apt-get install -y ffmpeg)` : spawnError.message;
        throw new Error(`${ivfPath}: cannot decode ${codec} with ffmpeg: ${reason}`);
      }
      const next = announced[0];
      if (next) {
        if (next.format !== 'yuv420p') throw new Error(`${ivfPath}: ffmpeg gave a ${next.format} picture, expected yuv420p`);
        const size = i420Size(next.width, next.height);
        if (buffered >= size) {
          announced.shift();
          const data = take(size);
          if (child.stdout.isPaused()) child.stdout.resume();
          yield { pts: next.pts, picture: { width: next.width, height: next.height, data } };
          continue;
        }
      }
      if (stdoutEnded && exit !== undefined) {
        if (exit.code !== 0) throw new Error(`${ivfPath}: ffmpeg (${decoder}) failed with ${exit.signal ?? `status ${exit.code}`}: ${errorLines(otherLines) || otherLines.slice(-1)[0] || 'no message'}`);
        if (next !== undefined || buffered > 0) throw new Error(`${ivfPath}: ffmpeg's output (${buffered} bytes left) does not match the ${announced.length} picture(s) it announced last`);
        return;
      }
      if (child.stdout.isPaused() && (next === undefined || buffered < i420Size(next.width, next.height))) child.stdout.resume();
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    if (exit === undefined && spawnError === undefined) {
      child.kill('SIGKILL');
      await new Promise<void>((resolve) => (exit !== undefined ? resolve() : child.once('close', () => resolve())));
    }
  }
}
