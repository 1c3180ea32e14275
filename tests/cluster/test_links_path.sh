#!/usr/bin/env bash
# `scaleprobe links`, a slow link (one path) and a CPU-starved host (links.sh says what is
# checked and the trial counts).
LINKS_SCENARIOS=${LINKS_SCENARIOS:-link cpu}
source "$(dirname "$0")/links.sh"
