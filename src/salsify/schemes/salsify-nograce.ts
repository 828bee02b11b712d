// salsify-nograce: Salsify with a grace period of 0 in every frame's first
// fragment, so the receiver's inter-arrival estimate counts the sender's idle
// time between frames as if the path had been slow (the paper's ablation).
// The paper ran it on Salsify-4, not Salsify-1: its Verizon run is
// excamera/salsify-results benchmarks/Verizon-LTE-driving/salsify-4-nograce
// ("Add results for Salsify-4 with no grace period on Verizon-LTE", commit
// 7644d81; 3,301 frames shown in 640 s). So this is salsify-4's four parallel
// encodings (salsify-4.ts) with grace 0. (On Salsify-1's two serial
// encodings, 76 ms per frame under paper timing, the inflated estimate let
// through only the forced send after every 3 skips: 3 frames a second and a
// mean delay above Salsify-1's, 274 against 199 ms on the Verizon stand-in,
// where the paper's was below, 442 against 517.)
import { salsify4 } from './salsify-4.ts';
import type { SchemeParams, SenderScheme } from './scheme.ts';

export const salsifyNograce = (params: SchemeParams): SenderScheme => salsify4(params, 'salsify-nograce', false);
