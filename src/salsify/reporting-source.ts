// A video source that reports how far a run is, in seconds of video: each
// new second of the frames the sender takes calls the listener once (for a
// progress display; the frames are the source's own).
import type { VideoSource } from '../codec-bridge/video/video-source.ts';

export type ProgressListener = (videoS: number) => void;

export function reportingSource(source: VideoSource, listener: ProgressListener): VideoSource {
  let last = -1;
  return {
    description: source.description, width: source.width, height: source.height, fps: source.fps, frameCount: source.frameCount,
    frame: (index: number) => {
      const s = Math.floor(index / source.fps);
      if (s > last) {
        last = s;
        listener(s);
      }
      return source.frame(index);
    },
    close: () => source.close(),
  };
}
