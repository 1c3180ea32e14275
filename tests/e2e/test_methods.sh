#!/usr/bin/env bash
# --method nccl-tests and --method osu at 2 ranks: the file names the method (/coll and /config),
# the table is printed, each row holds what docs/METHODOLOGY.md says (nccl-tests: one sample, a
# batch of -n, time = -a over the ranks' times; osu: -n samples of one operation, time = the
# mean over ranks of the ranks' means, OSU's counts by default); bad method options exit 2 with
# one message and no file.
source "$(dirname "$0")/lib.sh"

# the members of compound dataset $2 in file order
members() { h5dump -A 0 -H -d "$2" "$1" | sed -nE 's/^      (\} |H5T_[A-Z0-9_]+ )"([a-z0-9_]+)";$/\2/p'; }

# table FILE DATASET NAME...: one line per row of a compound dataset with the named columns
table() {
  local f=$1 d=$2 idx="" name
  shift 2
  for name in "$@"; do idx="$idx $(members "$f" "$d" | grep -nx "$name" | cut -d: -f1)"; done
  h5dump -A 0 -y -w 0 -m '%.17g' -d "$d" "$f" | awk -v idx="$idx" '
    BEGIN { n = split(idx, want, " ") }
    /^   DATA \{/ { data = 1; next }
    data && /^      \{/ { k = 0; next }
    data && /^      \}/ { s = ""; for (i = 1; i <= n; i++) s = s (i > 1 ? " " : "") v[want[i]]; print s; next }
    data && /^         / { k++; x = $0; gsub(/[ ,]/, "", x); v[k] = x }'
}
cols() { local f=$1; shift; table "$f" /coll/results "$@"; }

# values FILE DATASET: the numbers of a numeric dataset, one per line, in row-major order
values() { h5dump -A 0 -y -w 0 -m '%.17g' -d "$2" "$1" | sed -n '/DATA {/,/}/p' | grep -oE '[-0-9.eE+na]+' ; }

# over_ranks FILE NRANKS: per row of /coll/rank_times "rank0 mean min max"
over_ranks() {
  values "$1" /coll/rank_times | awk -v n="$2" '
    { i = (NR - 1) % n; x = $1 + 0; if (i == 0) { r0 = x; s = 0; lo = x; hi = x }
      s += x; if (x < lo) lo = x; if (x > hi) hi = x
      if (i == n - 1) printf "%.17g %.17g %.17g %.17g\n", r0, s / n, lo, hi }'
}

attr() { h5dump -a "$2" "$1" 2>/dev/null | sed -nE 's/^ *\(0\): "(.*)"$/\1/p'; }

# ---- nccl-tests: one host-timed batch of -n 20, reported as the mean over ranks (-a 1) ----
f="$TMP/nccl.h5"
sp_mpirun 2 coll --collectives all_reduce,all_gather -b 1K -e 16K -f 4 --method nccl-tests -n 20 -w 5 -O "$f" \
  >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" -eq 0 ] && ok "--method nccl-tests -n 20 -w 5: exit 0" || { not_ok "nccl-tests rc=$rc"; cat "$TMP/err"; }
[ "$(attr "$f" /coll/method)" = nccl-tests ] && [ "$(attr "$f" /config/method)" = nccl-tests ] &&
  [ "$(attr "$f" /config/average)" = 1 ] && ok "/coll and /config say method nccl-tests, -a 1" ||
  not_ok "method attributes: /coll '$(attr "$f" /coll/method)', /config '$(attr "$f" /config/method)'"
lines=$(grep -cE '^ +[0-9]+ +[0-9]+ +float ' "$TMP/out")
grep -q '^# method nccl-tests: one host-timed batch of 20 operations' "$TMP/out" && [ "$lines" = 6 ] &&
  ok "the table: a method line and 6 lines (3 sizes x 2 collectives)" || not_ok "table: $lines lines"
# every row: 1 sample, a batch of 20, time = mean of the two ranks' times, algbw = bytes / time,
# busbw = algbw x 1 (all_reduce, 2(n-1)/n) or x 1/2 (all_gather, (n-1)/n); the one sample is the
# max over ranks
paste -d' ' <(cols "$f" op bytes samples batch time_us algbw_gbps busbw_gbps) <(over_ranks "$f" 2) \
  <(table "$f" /coll/samples time_us) >"$TMP/rows"
bad=$(awk 'function off(a, b) { return (a - b) > 1e-9 * b || (b - a) > 1e-9 * b }
  { factor = $1 == "all_reduce" ? 1 : 0.5
    if ($3 != 1 || $4 != 20 || off($5, $9) || off($6, $2 / $5 / 1e3) || off($7, $6 * factor) ||
        off($12, $11)) print }' "$TMP/rows")
[ "$(wc -l <"$TMP/rows")" = 12 ] && [ -z "$bad" ] &&
  ok "12 rows: samples 1, batch 20, time = mean over ranks, algbw and busbw from it, sample = max" ||
  { not_ok "nccl-tests rows disagree:"; echo "$bad"; head -3 "$TMP/rows"; }

# -a 0, 2, 3: rank 0's, the min, the max of the ranks' times
for a in 0 2 3; do
  f="$TMP/a$a.h5"
  sp_mpirun 2 coll --collectives all_reduce -b 4K -e 4K --place out --method nccl-tests -n 10 -a "$a" -O "$f" \
    >/dev/null 2>"$TMP/err"
  read -r time_us < <(cols "$f" time_us)
  read -r r0 mean lo hi < <(over_ranks "$f" 2)
  want=$([ "$a" = 0 ] && echo "$r0" || { [ "$a" = 2 ] && echo "$lo" || echo "$hi"; })
  [ -n "$time_us" ] && [ "$time_us" = "$want" ] &&
    ok "-a $a: time $time_us us of rank times $r0 / $mean / $lo / $hi" ||
    not_ok "-a $a: time '$time_us', rank times $r0 $mean $lo $hi"
done

# ---- osu: -n 50 timed single operations per point, barrier-separated, with OSU's -f lines ----
f="$TMP/osu.h5"
sp_mpirun 2 coll --collectives all_reduce,broadcast -b 1K -e 16K -f 4 --method osu -n 50 -w 3 --osu-full -O "$f" \
  >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" -eq 0 ] && ok "--method osu -n 50 -w 3 --osu-full: exit 0" || { not_ok "osu rc=$rc"; cat "$TMP/err"; }
[ "$(attr "$f" /coll/method)" = osu ] && [ "$(attr "$f" /config/method)" = osu ] &&
  [ "$(attr "$f" /config/warmup)" = 3 ] && ok "/coll and /config say method osu, warmup 3" ||
  not_ok "osu attributes: /coll '$(attr "$f" /coll/method)', warmup '$(attr "$f" /config/warmup)'"
lines=$(grep -cE '^ +[0-9]+ +[0-9]+ +float ' "$TMP/out")
grep -q '^# method osu: 50 barrier-separated operations per point' "$TMP/out" && [ "$lines" = 6 ] &&
  ok "the table: a method line and 6 lines" || not_ok "osu table: $lines lines"
nsamples=$(h5dump -A 0 -H -d /coll/samples "$f" | sed -nE 's/.*SIMPLE \{ \( ([0-9]+) \).*/\1/p')
[ "$nsamples" = 600 ] && ok "/coll/samples: 50 per row, 12 rows" || not_ok "osu samples: $nsamples"
# every row: 50 samples of batch 1, time = mean over ranks of the ranks' means (rank_times), and
# the -f line of the row: avg, min and max over ranks as printed (%.2f)
grep '^# osu ' "$TMP/out" | sed -E 's/.*avg ([0-9.]+) min ([0-9.]+) max ([0-9.]+) us, ([0-9]+) iter.*/\1 \2 \3 \4/' \
  >"$TMP/full"
paste -d' ' <(cols "$f" samples batch time_us) <(over_ranks "$f" 2) "$TMP/full" >"$TMP/rows"
bad=$(awk 'function off(a, b) { return (a - b) > 1e-9 * b || (b - a) > 1e-9 * b }
  { if ($1 != 50 || $2 != 1 || off($3, $5) || sprintf("%.2f %.2f %.2f", $5, $6, $7) != $8 " " $9 " " $10 ||
        $11 != 50) print }' "$TMP/rows")
[ "$(wc -l <"$TMP/rows")" = 12 ] && [ -z "$bad" ] &&
  ok "12 rows: samples 50, batch 1, time = mean over ranks; -f lines give avg, min, max over ranks" ||
  { not_ok "osu rows disagree:"; echo "$bad"; head -3 "$TMP/rows"; }

# OSU's default counts: 1000 operations at 8 KiB, 100 above; warm-up left to OSU's (-1)
f="$TMP/osu-default.h5"
sp_mpirun 2 coll --collectives all_reduce -b 8K -e 16K -f 2 --place out --method osu -O "$f" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" -eq 0 ] && [ "$(cols "$f" samples | tr '\n' ' ')" = "1000 100 " ] &&
  [ "$(attr "$f" /config/warmup)" = -1 ] && ok "--method osu: 1000 operations at 8K, 100 at 16K, warmup -1" ||
  { not_ok "osu defaults: rc=$rc samples '$(cols "$f" samples | tr '\n' ' ')' warmup '$(attr "$f" /config/warmup)'"; cat "$TMP/err"; }

# the default method is named too, and still samples as before
f="$TMP/default.h5"
sp_mpirun 2 coll --collectives all_reduce -b 1K -e 1K --place out -n 5 -O "$f" >/dev/null 2>&1
[ "$(attr "$f" /coll/method)" = default ] && [ "$(cols "$f" samples)" = 5 ] &&
  ok "default method: /coll method default, 5 samples" || not_ok "default method: '$(attr "$f" /coll/method)'"

# -a given with the default method: nccl-tests' figure over the ranks' own medians (here the max)
f="$TMP/default-a3.h5"
sp_mpirun 2 coll --collectives all_reduce -b 4K -e 4K --place out -n 5 -a 3 -O "$f" >/dev/null 2>&1
read -r time_us < <(cols "$f" time_us)
read -r r0 mean lo hi < <(over_ranks "$f" 2)
[ -n "$time_us" ] && [ "$time_us" = "$hi" ] &&
  ok "default method -a 3: time $time_us us = max of the ranks' medians $r0 / $lo / $hi" ||
  not_ok "default method -a 3: time '$time_us', rank medians $r0 $mean $lo $hi"

# ---- bad method options: exit 2, one message naming the option, no file ----
for c in "--method nccl-tests -a 4|--average" "--method osu -a 0|--average" "--method osu -k 8|--batch" \
         "--method nccl-tests --osu-full|--osu-full" "--method mpi|--method"; do
  args=${c%|*}
  want=${c#*|}
  path="$TMP/bad.h5"
  # shellcheck disable=SC2086
  sp_mpirun 2 coll $args -O "$path" >"$TMP/out" 2>"$TMP/err"
  rc=$?
  nmsg=$(grep -c '^scaleprobe' "$TMP/err")
  [ "$rc" -eq 2 ] && [ "$nmsg" -eq 1 ] && grep '^scaleprobe' "$TMP/err" | grep -q -- "$want" && [ ! -e "$path" ] &&
    ok "coll $args: exit 2, $(grep '^scaleprobe' "$TMP/err")" ||
    { not_ok "coll $args: rc=$rc messages=$nmsg file=$([ -e "$path" ] && echo yes || echo no)"; cat "$TMP/err"; }
done
finish
