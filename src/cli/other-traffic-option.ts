// --downlink-other-traffic, as salsify sim and salsify eval take it: other
// traffic on the downlink beside the video (sim-runner.ts downlinkOtherTraffic).
import { usageError } from '../common/errors.ts';
import { integerValue, numberValue } from '../common/validate.ts';
import type { OtherTraffic } from '../salsify/other-traffic.ts';
import { MAX_DATAGRAM_BYTES } from '../salsify/datagram.ts';

const OTHER_TRAFFIC_OPTION = 'downlink-other-traffic';

/** BYTES_PER_S,PACKET_BYTES (a packet holds the link's `overheadBytes` and at least a byte of payload), or none (null). */
export function otherTrafficOption(text: string, overheadBytes: number): OtherTraffic | null {
  const name = OTHER_TRAFFIC_OPTION;
  if (text === 'none') return null;
  const parts = text.split(',');
  if (parts.length !== 2) throw usageError(`--${name} must be BYTES_PER_S,PACKET_BYTES or none, got ${JSON.stringify(text)}`);
  return {
    bytesPerS: numberValue(name, parts[0]!, { min: 0, minExclusive: true, max: 1e9 }, 'bytes a second'),
    packetBytes: integerValue(name, parts[1]!, { min: overheadBytes + 1, max: MAX_DATAGRAM_BYTES + overheadBytes }),
  };
}
