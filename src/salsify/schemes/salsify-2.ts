// salsify-2: Salsify with two encoders. The same two encodings and choice as
// salsify-1 (salsify-1.ts), but made at once, so a frame costs the longer of
// the two encodings rather than their sum.
import { twoEncodings } from './salsify-1.ts';
import type { SchemeParams, SenderScheme } from './scheme.ts';

export const salsify2 = (params: SchemeParams): SenderScheme => twoEncodings('salsify-2', 'parallel', params);
