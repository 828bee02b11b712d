#!/bin/sh
# Builds Mahimahi's link shells (mm-link, mm-delay, mm-loss, mm-onoff) from
# source, for the benchmarks that compare linkshell with the real mm-link
# (bench/linkshell-cpu.ts, bench/linkshell-vs-mm-link.ts). Not a part of the
# toolkit: Mahimahi is only the reference it is measured against.
#
# Usage: sh bench/build-mahimahi.sh [SOURCE]
#   SOURCE: a Mahimahi source directory (a checkout of ravinet/mahimahi), or a
#   bare git repository of it (default: /work/.mirror/ravinet+mahimahi/repo,
#   or $MAHIMAHI_SOURCE), whose HEAD is built.
#
# Output: .cache/mahimahi/bin/{mm-link,mm-delay,mm-loss,mm-onoff} in this
# checkout (.cache/ is ignored by git), made setuid root when run as root, as
# Mahimahi's own install does; .cache/mahimahi/build holds the build tree.
# The benchmarks look there first, then on PATH.
#
# Needs the build dependencies of Mahimahi's debian/control (Debian 12):
#   apt-get install autotools-dev dh-autoreconf iptables protobuf-compiler \
#     libprotobuf-dev pkg-config libssl-dev dnsmasq-base ssl-cert \
#     libxcb-present-dev libcairo2-dev libpango1.0-dev apache2-bin apache2-dev
# Running mm-link also needs net.ipv4.ip_forward=1 and a user other than root
# (it refuses a real uid of 0): the benchmarks run it through setpriv.
# Compiles with nice -n 10 and at most 2 jobs (the machine is shared).
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
source=${1:-${MAHIMAHI_SOURCE:-/work/.mirror/ravinet+mahimahi/repo}}
out="$root/.cache/mahimahi"
build="$out/build"
programs="mm-link mm-delay mm-loss mm-onoff"

for tool in autoreconf protoc apxs pkg-config g++ iptables; do
  command -v "$tool" >/dev/null 2>&1 || [ -x "/usr/sbin/$tool" ] || {
    echo "build-mahimahi: $tool is missing (install Mahimahi's build dependencies; see the top of $0)" >&2
    exit 2
  }
done
[ -d "$source" ] || { echo "build-mahimahi: source $source is not a directory" >&2; exit 2; }

rm -rf "$build"
mkdir -p "$build" "$out/bin"

if [ -f "$source/configure.ac" ]; then
  # A checkout: copy it (the build writes into its tree).
  cp -a "$source/." "$build/"
  revision=$(git -C "$source" rev-parse HEAD 2>/dev/null || echo "(not a git checkout)")
elif git --git-dir="$source" rev-parse --verify -q HEAD >/dev/null; then
  # A bare repository: write out HEAD's tree. A mirror may lack the blobs of
  # its largest files (the cellular traces); those are written empty (they are
  # data that the link shells do not need to build), and listed.
  revision=$(git --git-dir="$source" rev-parse HEAD)
  git --git-dir="$source" ls-tree -r HEAD | while read -r mode type object path; do
    [ "$type" = blob ] || continue
    mkdir -p "$build/$(dirname "$path")"
    if ! git --git-dir="$source" cat-file blob "$object" > "$build/$path" 2>/dev/null; then
      : > "$build/$path"
      echo "build-mahimahi: $path is absent from the mirror; written empty" >&2
    fi
    if [ "$mode" = 100755 ]; then chmod +x "$build/$path"; fi
  done
else
  echo "build-mahimahi: $source is neither a Mahimahi checkout nor a git repository" >&2
  exit 2
fi
echo "build-mahimahi: building $source at $revision in $build"

cd "$build"
nice -n 10 ./autogen.sh > "$out/autogen.log" 2>&1 || { echo "build-mahimahi: autogen.sh failed, see $out/autogen.log" >&2; exit 1; }
# The snakeoil certificate is for mm-webreplay only (not built here): the
# check for it is answered yes rather than a certificate generated system-wide.
nice -n 10 ./configure ac_cv_file__etc_ssl_certs_ssl_cert_snakeoil_pem=yes > "$out/configure.log" 2>&1 || { echo "build-mahimahi: configure failed, see $out/configure.log" >&2; exit 1; }
# Only what the link shells link against; the web record/replay tools are not needed.
for dir in protobufs util packet graphing; do
  nice -n 10 make -j2 -C "src/$dir" >> "$out/make.log" 2>&1 || { echo "build-mahimahi: make in src/$dir failed, see $out/make.log" >&2; exit 1; }
done
nice -n 10 make -j2 -C src/frontend $programs >> "$out/make.log" 2>&1 || { echo "build-mahimahi: make of $programs failed, see $out/make.log" >&2; exit 1; }

for program in $programs; do
  install -m 0755 "src/frontend/$program" "$out/bin/$program"
  if [ "$(id -u)" = 0 ]; then
    chown root:root "$out/bin/$program"
    chmod 4755 "$out/bin/$program" # setuid root, as Mahimahi installs it
  fi
done
# .cache/ holds the build; the directories above it must be searchable by the
# user mm-link runs as.
chmod 0755 "$root/.cache" "$out" "$out/bin"
echo "$revision" > "$out/REVISION"
echo "build-mahimahi: built $programs of $revision into $out/bin"
