# shellcheck shell=bash
# `scaleprobe links` on 6 emulated hosts, one rank each, launched from a seventh (sourced by
# test_links_healthy.sh, test_links_node.sh and test_links_path.sh, which pick the scenarios in
# LINKS_SCENARIOS):
#   healthy  no fault: no culprit named, in every trial
#   node     h4's link capped by tbf both ways (a slow node): h4 named as a node, and nothing
#            else, in at least 9 of 10 trials; exclude list h4 with reason and evidence
#   screen   the same slow node, --mode screen: h4 found in fewer rounds than the 5 of the
#            pairwise matrix, the rounds printed
#   link     only the path h2 <-> h5 capped (htb + u32 filter on the peer's address at both
#            ends): named as a link h2-h5, neither end as a node, in at least 9 of 10 trials
#   cpu      h3 at 10% of a core: printed (`known`), whether h3 is named as a node
# Trial counts: LINKS_TRIALS (10) for healthy, node and link; LINKS_FEW (3) for screen and cpu.
CL_BUDGET_S=${CL_BUDGET_S:-230}
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$CL_DIR/hosts.sh"

trials=${LINKS_TRIALS:-10}
few=${LINKS_FEW:-3}
need=$(((trials * 9 + 9) / 10)) # at least 9 of 10
hosts=h1:1,h2:1,h3:1,h4:1,h5:1,h6:1
links=(links --size 256K --lat-size 8 --screen-size 256K --min-samples 8 --max-samples 24
  --max-time 0.2 --epsilon 0.05 --batch-time 0.002 --threshold 0.5 --lat-threshold 0.8
  --confirm 2 -w 1)
rate=100mbit

# mpirun runs on h7, which holds no rank: no unit shares its host with the launcher
hosts_up 7 || { not_ok "7 emulated hosts did not come up"; finish; }
ok "7 emulated hosts up (h1-h6 one rank each, mpirun on h7)"
launcher=("${CL_MPIRUN[@]}")
launcher[1]=h7

# trial NAME ARGS...: one links run across the 6 hosts; its report in NAME.out; 1 on failure
trial() { links_trial "$1" SCREEN "${@:2}"; }
verdicts() { grep -c '^# SLOW' "$CL_RUN/work/$1.out"; }
nodes_named() { sed -n 's/^# SLOW NODE [a-z]*: \([^ ]*\) .*/\1/p' "$CL_RUN/work/$1.out" | sort -u; }
wanted() { [[ " ${LINKS_SCENARIOS:-healthy node screen link cpu} " == *" $1 "* ]]; }

if wanted healthy; then
  good=0
  for i in $(seq "$trials"); do
    trial "healthy-$i" && [ "$(verdicts "healthy-$i")" -eq 0 ] &&
      [ ! -s "$CL_RUN/work/healthy-$i-exclude.txt" ] && good=$((good + 1))
  done
  check "healthy: no node or link named in $good of $trials trials (all needed)" \
    [ "$good" -eq "$trials" ]
fi

if wanted node || wanted screen; then
  slow_link h4 "$rate" || { not_ok "cannot cap h4's link"; finish; }
fi
if wanted node; then
  good=0
  for i in $(seq "$trials"); do
    trial "node-$i" && [ "$(nodes_named "node-$i")" = h4 ] &&
      ! grep -q '^# SLOW LINK' "$CL_RUN/work/node-$i.out" &&
      [ "$(cat "$CL_RUN/work/node-$i-exclude.txt")" = h4 ] && good=$((good + 1))
  done
  check "slow node h4: named, and only it, in $good of $trials trials (at least $need)" \
    [ "$good" -ge "$need" ]
  check "slow node h4: the exclude JSON gives its reason and evidence, the drain is printed" \
    grep -q '"host": "h4", "reason": "scaleprobe links: bandwidth' \
    "$CL_RUN/work/node-1-exclude.json"
  check "slow node h4: report prints scontrol's drain of h4" \
    grep -q '^# slurm (printed, not run): scontrol update nodename=h4 state=drain' \
    "$CL_RUN/work/node-1.out"
fi
if wanted screen; then
  for i in $(seq "$few"); do
    trial "screen-$i" --mode screen
    rounds=$(sed -n 's/^# SCREEN: slow node h4 .* found in \([0-9]*\) round.*/\1/p' \
      "$CL_RUN/work/screen-$i.out" 2>/dev/null)
    check "screen $i: finds h4 in ${rounds:-?} rounds, fewer than the 5 of the pairwise matrix" \
      [ -n "$rounds" ] && [ "${rounds:-9}" -lt 5 ]
  done
fi
restore_host h4

if wanted link; then
  slow_pair h2 h5 "$rate" || { not_ok "cannot cap the path h2 <-> h5"; finish; }
  good=0
  for i in $(seq "$trials"); do
    trial "link-$i" && [ -z "$(nodes_named "link-$i")" ] &&
      grep -Eq '^# SLOW LINK bandwidth: (h2 .* h5|h5 .* h2) ' "$CL_RUN/work/link-$i.out" &&
      ! grep '^# SLOW LINK' "$CL_RUN/work/link-$i.out" | grep -Ev ' (h2 .* h5|h5 .* h2) ' |
      grep -q . && good=$((good + 1))
  done
  check "slow link h2-h5: named as that link, no node, in $good of $trials trials (at least $need)" \
    [ "$good" -ge "$need" ]
  restore_host h2
  restore_host h5
fi

if wanted cpu; then
  slow_cpu h3 10 || { not_ok "cannot set a cpu quota on h3"; finish; }
  for i in $(seq "$few"); do
    trial "cpu-$i" &&
      known "cpu quota on h3: named as a node ($(nodes_named "cpu-$i" | tr '\n' ' '))" \
      [ "$(nodes_named "cpu-$i")" = h3 ]
  done
  restore_host h3
fi
finish
