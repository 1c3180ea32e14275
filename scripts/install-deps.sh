#!/usr/bin/env bash
# Install every Debian package scaleprobe needs to build, test and run, when missing.
# Safe to run again: it installs nothing when everything is there.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  openmpi-bin libopenmpi-dev
  libhdf5-openmpi-dev hdf5-tools
  libhwloc-dev libcmocka-dev
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "scaleprobe: installing ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
