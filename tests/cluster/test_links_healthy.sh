#!/usr/bin/env bash
# `scaleprobe links` on a healthy cluster (no culprit in any trial), then the screen with a
# slow node (links.sh says what is checked and the trial counts).
LINKS_SCENARIOS=${LINKS_SCENARIOS:-healthy screen}
source "$(dirname "$0")/links.sh"
