#!/usr/bin/env bash
# `scaleprobe links`: a slow node, by the matrix and by the screen (links.sh says what is
# checked and the trial counts).
LINKS_SCENARIOS=${LINKS_SCENARIOS:-node screen}
source "$(dirname "$0")/links.sh"
