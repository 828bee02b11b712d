// salsify-nograce: salsify-1 with a grace period of 0 in every frame's first
// fragment, so the receiver's inter-arrival estimate counts the sender's idle
// time between frames as if the path had been slow (the paper's ablation).
import { twoEncodings } from './salsify-1.ts';
import type { SchemeParams, SenderScheme } from './scheme.ts';

export const salsifyNograce = (params: SchemeParams): SenderScheme => twoEncodings('salsify-nograce', 'serial', params, false);
