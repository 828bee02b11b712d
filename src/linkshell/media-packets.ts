// Whether a datagram carries an RTP packet (not RTCP, STUN or DTLS), as
// linkshell's held trace clock needs to know (trace-clock.ts: --trace-clock-start
// first-rtp). Pure: it reads bytes only.
//
// WebRTC multiplexes STUN, DTLS and RTP/RTCP on one port and tells them apart
// by the first byte (RFC 7983): 0-3 STUN, 20-63 DTLS, 64-79 TURN ChannelData,
// 128-191 RTP or RTCP; RTCP's packet types 192-223 in the second byte tell it
// from RTP (RFC 5761). Through a TURN server the packet is inside a TURN
// message: ChannelData (a 4-byte header: channel number 0x4000-0x7FFF, length)
// or a STUN Send/Data indication whose DATA attribute holds it (RFC 8656). In
// linkshell --netns a packet is a whole IPv4 packet: the UDP payload, or a TCP
// segment's payload for TURN over TCP (which carries the same TURN messages;
// a segment is recognised when a TURN message starts it, as the segments a
// sender writes one packet at a time do).

const RTP_VERSION_2_MIN = 128;
const RTP_VERSION_2_MAX = 191;
const RTCP_TYPE_MIN = 192;
const RTCP_TYPE_MAX = 223;
const RTP_HEADER_BYTES = 12;
const STUN_HEADER_BYTES = 20;
const STUN_MAGIC_COOKIE = 0x2112a442;
/** Send indication (method 0x006, class indication) and Data indication (method 0x007). */
const STUN_SEND_INDICATION = 0x0016;
const STUN_DATA_INDICATION = 0x0017;
const STUN_DATA_ATTRIBUTE = 0x0013;

/** An RTP packet itself (version 2, not RTCP). */
export function isRtp(bytes: Uint8Array): boolean {
  if (bytes.length < RTP_HEADER_BYTES) return false;
  const first = bytes[0]!;
  const type = bytes[1]!;
  return first >= RTP_VERSION_2_MIN && first <= RTP_VERSION_2_MAX && !(type >= RTCP_TYPE_MIN && type <= RTCP_TYPE_MAX);
}

/** The payload a TURN ChannelData message or Send/Data indication carries, or undefined if `bytes` starts with neither. */
export function turnPayload(bytes: Uint8Array): Uint8Array | undefined {
  if (bytes.length < 4) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const first = bytes[0]!;
  if (first >= 0x40 && first <= 0x7f) {
    const length = view.getUint16(2);
    return bytes.length >= 4 + length ? bytes.subarray(4, 4 + length) : undefined;
  }
  if (bytes.length < STUN_HEADER_BYTES || first > 3 || view.getUint32(4) !== STUN_MAGIC_COOKIE) return undefined;
  const type = view.getUint16(0);
  if (type !== STUN_SEND_INDICATION && type !== STUN_DATA_INDICATION) return undefined;
  const end = Math.min(bytes.length, STUN_HEADER_BYTES + view.getUint16(2));
  for (let at = STUN_HEADER_BYTES; at + 4 <= end; ) {
    const attribute = view.getUint16(at);
    const length = view.getUint16(at + 2);
    if (attribute === STUN_DATA_ATTRIBUTE) return at + 4 + length <= end ? bytes.subarray(at + 4, at + 4 + length) : undefined;
    at += 4 + Math.ceil(length / 4) * 4;
  }
  return undefined;
}

/** A UDP payload that is an RTP packet, bare or inside a TURN message. */
export function udpPayloadCarriesRtp(payload: Uint8Array): boolean {
  if (isRtp(payload)) return true;
  const inner = turnPayload(payload);
  return inner !== undefined && isRtp(inner);
}

const IPPROTO_TCP = 6;
const IPPROTO_UDP = 17;

/** An IPv4 packet whose UDP payload carries RTP (bare or in TURN), or whose TCP segment starts with a TURN message carrying RTP. */
export function ipPacketCarriesRtp(packet: Uint8Array): boolean {
  if (packet.length < 20 || packet[0]! >> 4 !== 4) return false;
  const headerBytes = (packet[0]! & 0x0f) * 4;
  // A fragment after the first has no transport header.
  if (((packet[6]! & 0x1f) << 8) + packet[7]! !== 0) return false;
  const total = Math.min(packet.length, (packet[2]! << 8) + packet[3]!);
  const protocol = packet[9]!;
  if (protocol === IPPROTO_UDP) return total >= headerBytes + 8 && udpPayloadCarriesRtp(packet.subarray(headerBytes + 8, total));
  if (protocol === IPPROTO_TCP) {
    if (total < headerBytes + 20) return false;
    const dataAt = headerBytes + (packet[headerBytes + 12]! >> 4) * 4;
    if (dataAt >= total) return false;
    const inner = turnPayload(packet.subarray(dataAt, total));
    return inner !== undefined && isRtp(inner);
  }
  return false;
}
