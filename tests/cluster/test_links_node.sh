#!/usr/bin/env bash
# `scaleprobe links`: a slow node found by the matrix (links.sh says what is checked and the
# trial counts).
LINKS_SCENARIOS=${LINKS_SCENARIOS:-node}
source "$(dirname "$0")/links.sh"
