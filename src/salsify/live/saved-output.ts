// What `salsify receive` keeps of the frames it shows, besides its records:
// every shown frame's compressed bytes (OUT/received.ivf, in show order, the
// frame number as timestamp) when SSIM must be computed later, and with
// --save-video the shown pictures (OUT/received.y4m). The first frame fixes
// each file's picture size; the frame rate in their headers is nominal
// (pictures come when shown). A failed write is reported once, to `onFailure`.
import { join } from 'node:path';
import { createIvfWriter, type IvfWriter } from '../../codec-bridge/video/ivf.ts';
import { createY4mWriter, type Y4mWriter } from '../../codec-bridge/video/y4m.ts';
import type { ShownFrame } from '../receiver.ts';
import { SAVED_FRAMES, SAVED_VIDEO } from './records.ts';

export class SavedOutput {
  readonly #dir: string;
  readonly #frames: boolean;
  readonly #pictures: boolean;
  readonly #onFailure: (error: Error) => void;
  #ivf: IvfWriter | undefined;
  #y4m: Y4mWriter | undefined;
  #failed = false;
  #picturesSaved = 0;

  constructor(dir: string, what: { frames: boolean; pictures: boolean }, onFailure: (error: Error) => void) {
    this.#dir = dir;
    this.#frames = what.frames;
    this.#pictures = what.pictures;
    this.#onFailure = onFailure;
  }

  /** The file names for the receiver's header (null: not saved). */
  get names(): { readonly frames: string | null; readonly video: string | null } {
    return { frames: this.#frames ? SAVED_FRAMES : null, video: this.#pictures ? SAVED_VIDEO : null };
  }

  get picturesSaved(): number {
    return this.#picturesSaved;
  }

  #fail = (error: unknown) => {
    if (this.#failed) return;
    this.#failed = true;
    this.#onFailure(error instanceof Error ? error : new Error(String(error)));
  };

  /** Saves what is kept of a shown frame; returns the index of its saved picture, if one was saved. */
  save(s: ShownFrame): number | undefined {
    if (this.#failed) return undefined;
    try {
      const size = { width: s.picture.width, height: s.picture.height, fps: 60 };
      if (this.#frames) {
        this.#ivf ??= createIvfWriter(join(this.#dir, SAVED_FRAMES), { ...size, fourcc: 'VP80' });
        this.#ivf.write({ data: s.frame, timestamp: s.frameNumber }).catch(this.#fail);
      }
      if (this.#pictures) {
        this.#y4m ??= createY4mWriter(join(this.#dir, SAVED_VIDEO), size);
        // write() copies the picture before it returns, so decoder buffers may be reused.
        this.#y4m.write(s.picture).catch(this.#fail);
        return this.#picturesSaved++;
      }
    } catch (error) {
      this.#fail(error);
    }
    return undefined;
  }

  async close(): Promise<void> {
    await this.#y4m?.close();
    await this.#ivf?.close();
  }
}
