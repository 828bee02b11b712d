// When each frame's datagrams reached the receiver: the first, and the last
// once every fragment of the frame has arrived (duplicates count once). Fed
// by the receiver's onFragment hook, in the simulator and over UDP alike; a
// frame sent but never complete is a lost frame in the results.
import type { FragmentDatagram } from './datagram.ts';

export interface FrameArrival {
  readonly firstMs: number;
  /** When the fragment that completed the frame arrived; unset while some are missing. */
  readonly lastMs?: number;
  /** When the latest of its fragments so far arrived. */
  readonly latestMs: number;
  readonly fragments: number;
  readonly fragmentCount: number;
}

interface Tracking {
  readonly firstMs: number;
  latestMs: number;
  complete: boolean;
  /** Fragment indices seen, while the frame is incomplete. */
  seen: Set<number> | undefined;
  fragments: number;
  readonly fragmentCount: number;
}

export class FrameArrivals {
  readonly #frames = new Map<number, Tracking>();

  /** Records a fragment's arrival; returns the frame's arrival when this fragment completed it. */
  fragment(d: Pick<FragmentDatagram, 'frameNumber' | 'fragmentIndex' | 'fragmentCount'>, at: number): FrameArrival | undefined {
    let t = this.#frames.get(d.frameNumber);
    if (!t) {
      t = { firstMs: at, latestMs: at, complete: false, seen: new Set(), fragments: 0, fragmentCount: d.fragmentCount };
      this.#frames.set(d.frameNumber, t);
    }
    if (t.complete || t.seen!.has(d.fragmentIndex) || d.fragmentIndex >= t.fragmentCount) return undefined;
    t.seen!.add(d.fragmentIndex);
    t.fragments++;
    t.latestMs = at;
    if (t.fragments < t.fragmentCount) return undefined;
    t.complete = true;
    t.seen = undefined; // a complete frame needs no more than its times
    return view(t);
  }

  get(frameNumber: number): FrameArrival | undefined {
    const t = this.#frames.get(frameNumber);
    return t && view(t);
  }

  /** Frames some but not all of whose fragments arrived. */
  incomplete(): [number, FrameArrival][] {
    return [...this.#frames].filter(([, t]) => !t.complete).map(([n, t]) => [n, view(t)]);
  }

  toMap(): Map<number, FrameArrival> {
    return new Map([...this.#frames].map(([n, t]) => [n, view(t)]));
  }
}

function view(t: Tracking): FrameArrival {
  return { firstMs: t.firstMs, lastMs: t.complete ? t.latestMs : undefined, latestMs: t.latestMs, fragments: t.fragments, fragmentCount: t.fragmentCount };
}
