#!/bin/bash
# Fetches the paper's Verizon trace, Verizon-LTE-driving.down and .up, from
# Debian 11's mahimahi-traces package (0.98-1.1; Debian 12 has no such
# package) into DIR (default .cache/mahimahi-traces), checks that both are
# the files Mahimahi's repository holds (their git blob ids), and prints the
# LINKSHELL_TRACES setting that makes the presets run them. apt works from a
# private sources list and state in a temporary directory: the machine's apt
# configuration is not touched. Needs apt-get, dpkg-deb, git and Debian's
# archive keyring (all on a Debian machine), and deb.debian.org.
set -euo pipefail

dir="${1:-.cache/mahimahi-traces}"
case "$dir" in -h | --help)
  sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
  echo "usage: bash scripts/get-verizon-trace.sh [DIR]"
  exit 0
  ;;
esac
declare -A BLOB=([Verizon-LTE-driving.down]=d431ad4a5ed9811588256bae5b14025cbdffd7fd [Verizon-LTE-driving.up]=b4ca49ef2a5a8d2e21162aaaf02b12d80f0f17e0)
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

fail() {
  echo "get-verizon-trace: $*" >&2
  exit 2
}
for tool in apt-get dpkg-deb git; do command -v "$tool" > /dev/null || fail "needs $tool"; done
[ -r "$KEYRING" ] || fail "needs Debian's archive keyring ($KEYRING: apt-get install debian-archive-keyring)"

have() {
  local name
  for name in "${!BLOB[@]}"; do
    [ -f "$dir/$name" ] && [ "$(git hash-object "$dir/$name")" = "${BLOB[$name]}" ] || return 1
  done
}

if ! have; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  mkdir -p "$work/lists/partial" "$work/archives/partial" "$work/etc/preferences.d"
  echo "deb [signed-by=$KEYRING] http://deb.debian.org/debian bullseye main" > "$work/etc/sources.list"
  apt=(-o "Dir::Etc::SourceList=$work/etc/sources.list" -o "Dir::Etc::SourceParts=-" -o "Dir::Etc::PreferencesParts=$work/etc/preferences.d"
    -o "Dir::State::Lists=$work/lists" -o "Dir::State::Status=/dev/null" -o "Dir::Cache=$work" -o "Debug::NoLocking=1" -o "APT::Sandbox::User=root")
  apt-get "${apt[@]}" -qq update || fail "apt-get update of Debian 11's package lists failed"
  (cd "$work" && apt-get "${apt[@]}" -qq download mahimahi-traces) || fail "apt-get download mahimahi-traces failed"
  dpkg-deb -x "$work"/mahimahi-traces_*.deb "$work/x"
  mkdir -p "$dir"
  for name in "${!BLOB[@]}"; do
    file=$(find "$work/x" -name "$name" -type f | head -n 1)
    [ -n "$file" ] || fail "the package has no $name"
    cp "$file" "$dir/$name.tmp" && mv "$dir/$name.tmp" "$dir/$name"
  done
  have || fail "the files in $dir are not Mahimahi's (git blob ids differ)"
fi
echo "Verizon-LTE-driving.down and .up in $dir (Mahimahi's files, checked)"
echo "run the presets on them with: LINKSHELL_TRACES=$dir"
