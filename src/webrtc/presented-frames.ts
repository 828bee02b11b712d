// Frames Chromium presented without a requestVideoFrameCallback callback.
// Under load the page's callbacks come less often than frames are
// presented: each callback reports Chromium's own count of frames presented
// so far (metadata.presentedFrames), so a step of k > 1 between two
// consecutive callbacks means k - 1 frames were presented in between that no
// callback saw. Before this they were counted "never shown", their delay
// taken from the next observed frame.
//
// What can be known of them, and what cannot:
// - WHICH frames: frames are presented in RTP timestamp order, and only
//   frames the receiver got whole (its insertable stream) can be, so the
//   candidates are the frames received with an RTP timestamp strictly
//   between the two callbacks' frames. When there are exactly k - 1 of them,
//   they are the ones presented (attributed). Otherwise (some candidate was
//   dropped by the renderer, or was not seen whole) which were presented is
//   not known: those k - 1 presentations are counted apart (unattributed),
//   and their frames keep the fate the evidence gives them.
// - WHEN: not known. rVFC reports a time only for the frames it calls back
//   for; mediaTime and the RTP timestamp are capture-side times. A frame
//   presented between two callbacks was shown after the first callback's
//   presentation time and no later than the second's: its display time is
//   bounded to (after, by]. An attributed frame is counted as shown at `by`,
//   an upper bound, so its signal delay stays an upper bound (as the next
//   observed frame's time gave it before), while its fate becomes shown and
//   its SSIM is measured.
// Pure: it reads the callbacks' records and the received RTP timestamps.

export interface DisplayCallback {
  /** metadata.presentedFrames (undefined where the browser does not give it). */
  readonly presented?: number;
  /** metadata.rtpTimestamp of the frame called back for. */
  readonly rtp?: number;
  /** metadata.presentationTime. */
  readonly presentationMs: number;
}

export interface PresentedWithoutCallback {
  readonly rtp: number;
  /** The presentation time of the callback before it: it was shown after this. */
  readonly afterMs: number;
  /** The presentation time of the callback after it: it was shown by this. */
  readonly byMs: number;
}

export interface PresentedFrames {
  /** Frames known to have been presented without a callback, each with the bounds of its display time. */
  readonly attributed: PresentedWithoutCallback[];
  /** Presentations without a callback whose frame cannot be told (the candidates did not match their number). */
  readonly unattributed: number;
  /** Callback gaps (steps of presentedFrames above 1). */
  readonly gaps: number;
}

/** `b` minus `a` for 32-bit RTP timestamps, taken into [-2^31, 2^31). */
function rtpAfter(a: number, b: number): number {
  const d = (((b - a) % 2 ** 32) + 2 ** 32) % 2 ** 32;
  return d >= 2 ** 31 ? d - 2 ** 32 : d;
}

/** The frames presented between callbacks (see above); `received` are the RTP timestamps of the frames the receiver got whole, in any order, repeats allowed. */
export function presentedWithoutCallbacks(callbacks: readonly DisplayCallback[], received: readonly number[]): PresentedFrames {
  const counted = callbacks.filter((c): c is DisplayCallback & { presented: number; rtp: number } => c.presented !== undefined && c.rtp !== undefined);
  counted.sort((a, b) => a.presented - b.presented);
  const distinct = [...new Set(received)];
  const attributed: PresentedWithoutCallback[] = [];
  let unattributed = 0;
  let gaps = 0;
  for (let i = 1; i < counted.length; i++) {
    const before = counted[i - 1]!;
    const after = counted[i]!;
    const missed = after.presented - before.presented - 1;
    if (missed <= 0) continue;
    gaps++;
    const span = rtpAfter(before.rtp, after.rtp);
    const between = distinct.filter((rtp) => {
      const d = rtpAfter(before.rtp, rtp);
      return d > 0 && d < span;
    });
    if (between.length !== missed) {
      unattributed += missed;
      continue;
    }
    between.sort((a, b) => rtpAfter(before.rtp, a) - rtpAfter(before.rtp, b));
    for (const rtp of between) attributed.push({ rtp, afterMs: before.presentationMs, byMs: after.presentationMs });
  }
  return { attributed, unattributed, gaps };
}
