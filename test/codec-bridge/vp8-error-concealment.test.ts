// What the Salsify receiver can rely on from the system's libvpx: the reference
// receiver (alfalfa salsify-receiver.cc) decodes an incomplete frame with
// error concealment; stock libvpx conceals errors only when built with
// --enable-error-concealment, which vpx_codec_get_caps() of the VP8 decoder
// reports as VPX_CODEC_CAP_ERROR_CONCEALMENT. Debian's libvpx (1.12) is built
// without it, so this receiver abandons an incomplete frame (receiver.ts).
// This test compiles a few lines of C against libvpx-dev and asks the library
// itself; if it ever fails, the library can conceal errors and the receiver's
// choice should be revisited.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HANG_BOUND_MS } from '../helpers/bounds.ts';

const PROGRAM = `
#include <stdio.h>
#include <vpx/vpx_decoder.h>
#include <vpx/vp8dx.h>
int main(void) {
  vpx_codec_caps_t caps = vpx_codec_get_caps(vpx_codec_vp8_dx());
  printf("%s\\n%ld %d\\n", vpx_codec_version_str(), (long)caps, (caps & VPX_CODEC_CAP_ERROR_CONCEALMENT) ? 1 : 0);
  return 0;
}
`;

test('the system libvpx VP8 decoder has no error concealment (vpx_codec_get_caps)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vpx-caps-'));
  try {
    writeFileSync(join(dir, 'caps.c'), PROGRAM);
    const cc = spawnSync('cc', ['-o', join(dir, 'caps'), join(dir, 'caps.c'), '-lvpx'], { encoding: 'utf8', timeout: HANG_BOUND_MS });
    assert.is(cc.status, 0, `cc failed: ${cc.stderr}`);
    const [version, line] = execFileSync(join(dir, 'caps'), { encoding: 'utf8', timeout: HANG_BOUND_MS }).trim().split('\n');
    const [caps, concealment] = line.split(' ').map(Number);
    assert.match(version, /^v?1\.\d+/);
    assert.ok(caps > 0, `caps ${caps}`);
    assert.is(concealment, 0, `libvpx ${version} reports error concealment (caps 0x${caps.toString(16)}): the receiver could decode incomplete frames`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
