#!/usr/bin/env bash
# Install the Debian packages scaleprobe needs, when missing. Safe to run again: it installs
# nothing when everything is there.
#   install-deps.sh        what the tests need too (scripts/test.sh, CI)
#   install-deps.sh run    only what building and running the main job needs (scripts/run.sh):
#                          a fresh machine's first run does not wait for Slurm, Chromium & co.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  openmpi-bin libopenmpi-dev
  libhdf5-openmpi-dev hdf5-tools
  # producer-side compression of /timeline/events (src/runtime/aggregate_chunk.c)
  zlib1g-dev
  libhwloc-dev libcmocka-dev
  # `scaleprobe accept`: its spec and baseline files
  libcjson-dev
  # `scaleprobe node`: the host GEMM (CBLAS)
  libopenblas-dev
)
if [ "${1:-test}" != run ]; then
  packages+=(
    # tests/cluster: a throw-away Slurm (munge for its authentication) and emulated hosts in
    # network namespaces (ip, tc)
    munge slurmctld slurmd slurm-client iproute2
    # scripts/plot/scaleprobe-plot (h5py, matplotlib) and its test, which renders the HTML
    # report in headless Chromium (a font, or the page's text does not render); pandas: the
    # export test reads every CSV as a user would
    python3-h5py python3-matplotlib python3-pandas chromium fonts-dejavu-core
    # accept's tests check the JUnit XML with a JUnit reader (junitparser) and the schema (xmllint)
    python3-junitparser libxml2-utils
    # tests/bundle: the GPU bundle (scripts/gpu-bundle.sh, xz) run in a minimal Debian root
    debootstrap xz-utils
    # scripts/fuzz.sh and scripts/sanitize.sh: clang with libFuzzer and the sanitizer runtimes
    clang
  )
fi

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
# The maintainer scripts of munge and slurm start their daemons through invoke-rc.d. A
# policy-rc.d that exits 101 forbids that (the tests start their own daemons, with their own
# configuration); it is created only when the machine has none, and removed again afterwards.
policy=/usr/sbin/policy-rc.d
made_policy=0
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\n# made by scaleprobe install-deps.sh: no service starts\nexit 101\n' |
    $sudo tee "$policy" >/dev/null
  $sudo chmod 755 "$policy"
  made_policy=1
fi
remove_policy() {
  if [ "$made_policy" -eq 1 ]; then
    $sudo rm -f "$policy"
  fi
}
trap remove_policy EXIT
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
