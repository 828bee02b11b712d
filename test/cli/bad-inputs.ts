// Malformed and unreadable input files of every kind a command line names
// (traces, Y4M clips, IVF clips), written into a temporary directory, for the
// table-driven exit-status tests.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ivfHeader as anyIvfHeader, type IvfHeaderFields } from '../helpers/ivf-header.ts';

export interface BadInput {
  /** What is wrong with it. */
  readonly label: string;
  /** Which kind of input it is. */
  readonly kind: 'trace' | 'y4m' | 'ivf';
  /** Its path. */
  readonly path: string;
}

const REAL_IVF = join(import.meta.dirname, '../../../shared/video/FourPeople_1280x720_60.ivf');

/** The header of a one-frame IVF file, with any field changed. */
const ivfHeader = (fields: IvfHeaderFields = {}) => anyIvfHeader({ frames: 1, ...fields });

function ivfFrame(size: number, timestamp: number, data: Buffer): Buffer {
  const head = Buffer.alloc(12);
  head.writeUInt32LE(size, 0);
  head.writeBigUInt64LE(BigInt(timestamp), 4);
  return Buffer.concat([head, data]);
}

const Y4M_OK_HEADER = 'YUV4MPEG2 W16 H16 F30:1 Ip A1:1 C420jpeg\n';
const Y4M_FRAME = Buffer.concat([Buffer.from('FRAME\n'), Buffer.alloc(16 * 16 * 3 / 2, 128)]);

/** Writes every bad input into a new temporary directory. */
export function makeBadInputs(): BadInput[] {
  const dir = mkdtempSync(join(tmpdir(), 'bad-inputs-'));
  const inputs: BadInput[] = [];
  const put = (kind: BadInput['kind'], label: string, name: string, bytes: string | Buffer) => {
    const path = join(dir, name);
    writeFileSync(path, bytes);
    inputs.push({ kind, label, path });
  };
  const special = (kind: BadInput['kind'], label: string, name: string, make: (path: string) => void) => {
    const path = join(dir, name);
    make(path);
    inputs.push({ kind, label, path });
  };
  const fifo = (path: string) => execFileSync('mkfifo', [path]);

  // Traces.
  put('trace', 'an empty trace', 'empty.trace', '');
  put('trace', 'a trace of words', 'words.trace', 'one\ntwo\n');
  put('trace', 'a trace whose times decrease', 'decreasing.trace', '5\n3\n');
  put('trace', 'a trace whose last time is 0', 'zero.trace', '0\n0\n');
  put('trace', 'a trace with an empty line', 'blank-line.trace', '1\n\n2\n');
  put('trace', 'a trace with a negative time', 'negative.trace', '-1\n4\n');
  put('trace', 'a trace with a fractional time', 'fraction.trace', '1.5\n4\n');
  put('trace', 'a trace of binary bytes', 'binary.trace', Buffer.from([0, 1, 2, 255, 10]));
  put('trace', 'a trace with a time beyond 2^53', 'huge.trace', '99999999999999999999\n');
  special('trace', 'a directory as a trace', 'dir.trace', (p) => mkdirSync(p));
  special('trace', 'a FIFO as a trace', 'fifo.trace', fifo);
  special('trace', 'a missing trace', 'missing.trace', () => {});

  // Y4M clips.
  put('y4m', 'an empty Y4M file', 'empty.y4m', '');
  put('y4m', 'a Y4M file without the signature', 'signature.y4m', 'NOTYUV W16 H16 F30:1\n');
  put('y4m', 'a Y4M header without W', 'no-width.y4m', Buffer.concat([Buffer.from('YUV4MPEG2 H16 F30:1\n'), Y4M_FRAME]));
  put('y4m', 'a Y4M header with frame rate 0', 'rate0.y4m', Buffer.concat([Buffer.from('YUV4MPEG2 W16 H16 F0:1\n'), Y4M_FRAME]));
  put('y4m', 'a Y4M header with a huge width', 'wide.y4m', Buffer.concat([Buffer.from('YUV4MPEG2 W999999 H16 F30:1\n'), Y4M_FRAME]));
  put('y4m', 'a Y4M header with an unknown colour space', 'colour.y4m', Buffer.concat([Buffer.from('YUV4MPEG2 W16 H16 F30:1 C444\n'), Y4M_FRAME]));
  put('y4m', 'a Y4M header with a field twice', 'twice.y4m', Buffer.concat([Buffer.from('YUV4MPEG2 W16 W16 H16 F30:1\n'), Y4M_FRAME]));
  put('y4m', 'a Y4M file with no frames', 'no-frames.y4m', Y4M_OK_HEADER);
  put('y4m', 'a Y4M file with a truncated frame', 'truncated.y4m', Buffer.concat([Buffer.from(Y4M_OK_HEADER), Y4M_FRAME.subarray(0, 100)]));
  put('y4m', 'a Y4M file with a bad frame marker', 'marker.y4m', Buffer.concat([Buffer.from(Y4M_OK_HEADER), Buffer.from('FRAMX\n'), Buffer.alloc(384)]));
  special('y4m', 'a directory as a Y4M file', 'dir.y4m', (p) => mkdirSync(p));
  special('y4m', 'a missing Y4M file', 'missing.y4m', () => {});

  // IVF clips.
  const firstFrame = (() => {
    const real = readFileSync(REAL_IVF);
    const size = real.readUInt32LE(32);
    return real.subarray(32, 32 + 12 + size);
  })();
  put('ivf', 'an empty IVF file', 'empty.ivf', '');
  put('ivf', 'an IVF file with a truncated header', 'short.ivf', ivfHeader().subarray(0, 20));
  put('ivf', 'an IVF file with a bad signature', 'signature.ivf', Buffer.concat([ivfHeader({ signature: 'RIFF' }), firstFrame]));
  put('ivf', 'an IVF file of version 1', 'version.ivf', Buffer.concat([ivfHeader({ version: 1 }), firstFrame]));
  put('ivf', 'an IVF file of another codec', 'fourcc.ivf', Buffer.concat([ivfHeader({ fourcc: 'H264' }), firstFrame]));
  put('ivf', 'an IVF file of width 0', 'width0.ivf', Buffer.concat([ivfHeader({ width: 0 }), firstFrame]));
  put('ivf', 'an IVF file with time base 0', 'timebase0.ivf', Buffer.concat([ivfHeader({ rate: 0 }), firstFrame]));
  put('ivf', 'an IVF file with no frames', 'no-frames.ivf', ivfHeader({ width: 1280, height: 720 }));
  put('ivf', 'an IVF file with a truncated frame header', 'frame-head.ivf', Buffer.concat([ivfHeader({ width: 1280, height: 720 }), firstFrame.subarray(0, 6)]));
  put('ivf', 'an IVF file with a truncated frame', 'frame-body.ivf', Buffer.concat([ivfHeader({ width: 1280, height: 720 }), firstFrame.subarray(0, 40)]));
  put('ivf', 'an IVF file whose frame is not VP8', 'garbage.ivf', Buffer.concat([ivfHeader({ width: 1280, height: 720 }), ivfFrame(64, 0, Buffer.alloc(64, 0xab))]));
  put('ivf', 'an IVF file whose frame size is huge', 'frame-size.ivf', Buffer.concat([ivfHeader({ width: 16, height: 16 }), ivfFrame(0x7fffffff, 0, Buffer.alloc(8))]));
  special('ivf', 'a directory as an IVF file', 'dir.ivf', (p) => mkdirSync(p));
  special('ivf', 'a missing IVF file', 'missing.ivf', () => {});
  return inputs;
}
