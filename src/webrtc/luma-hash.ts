// A 32-bit FNV-1a hash of a luma plane, row by row (`luma[y * stride + x]`),
// to compare Chromium's own decoding of a frame (hashed in the receiver page)
// with our decoder's, without moving the pictures themselves. Self-contained:
// the page runs this function's source text.
export function lumaHash(luma: ArrayLike<number>, width: number, height: number, stride: number): number {
  let h = 0x811c9dc5;
  for (let y = 0; y < height; y++) {
    const row = y * stride;
    for (let x = 0; x < width; x++) {
      h ^= luma[row + x];
      h = Math.imul(h, 0x01000193);
    }
  }
  return h >>> 0;
}
