#!/bin/sh
# Salsify over real UDP through an emulated link, on this machine:
#   1. `salsify receive` listens on a free loopback port and records what it shows;
#   2. `linkshell` emulates the path (a trace, a drop-tail queue of 256 packets as
#      in the Salsify paper) and runs `salsify send` inside it: the sender finds
#      linkshell's listen address in $LINKSHELL_ADDR, so it needs no --to;
#   3. `salsify analyze` joins both records (same run id) into the results table.
# Both ends read the same clock (one machine), as the paper's bench did.
#
# Usage: examples/salsify-over-linkshell.sh [OUT_DIR]
# Environment: TRACE (default traces/cellular-6mbps.trace), DURATION (seconds,
# default 10), VIDEO (default synthetic:1280x720@60), CODEC (model or vp8,
# default model), SCHEME (salsify-1, salsify-2, conventional-1s, salsify-nograce,
# salsify-targetsize or salsify-4).
set -eu
cd "$(dirname "$0")/.."
OUT=${1:-$(mktemp -d "${TMPDIR:-/tmp}/salsify-live-XXXXXX")}
TRACE=${TRACE:-traces/cellular-6mbps.trace}
DURATION=${DURATION:-10}
VIDEO=${VIDEO:-synthetic:1280x720@60}
CODEC=${CODEC:-model}
SCHEME=${SCHEME:-salsify-1}
mkdir -p "$OUT"

# With vp8 the receiver keeps the compressed frames it showed; analyze decodes them again for SSIM.
# (The log exists before the loop below reads it, whenever the background shell gets to open it.)
: > "$OUT/receive.log"
node bin/salsify.js receive --port 0 --out "$OUT" --codec "$CODEC" --idle-timeout 2 2> "$OUT/receive.log" &
RECEIVER=$!
trap 'kill $RECEIVER 2>/dev/null || true' INT TERM

# The receiver prints the port it got: "salsify receive: listening on 127.0.0.1:PORT ...".
PORT=""
for _ in $(seq 100); do
  PORT=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$OUT/receive.log")
  [ -n "$PORT" ] && break
  sleep 0.1
done
if [ -z "$PORT" ]; then echo "the receiver did not start:" >&2; cat "$OUT/receive.log" >&2; exit 1; fi

node bin/linkshell.js --trace "$TRACE" --connect "127.0.0.1:$PORT" \
  --uplink-queue droptail --uplink-queue-args packets=256 --uplink-log "$OUT/uplink.log" \
  -- node bin/salsify.js send --out "$OUT" --duration "$DURATION" --video "$VIDEO" --codec "$CODEC" --scheme "$SCHEME" \
  2> "$OUT/send.log"
wait $RECEIVER   # it stops 2 s after the last datagram

node bin/salsify.js analyze "$OUT" --link-log "$OUT/uplink.log" --json "$OUT/analysis.json" --csv "$OUT/frames.csv"
echo "records, logs and analysis in $OUT"
