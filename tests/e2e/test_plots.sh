#!/usr/bin/env bash
# scripts/plot/scaleprobe-plot: every picture of a 2-rank sweep and a 4-rank proxy file is a PNG
# that is not one flat colour; the HTML reports (one sweep, one proxy, a comparison of two sweeps)
# are self-contained, hold the stored numbers `report` and `compare` print, and render in headless
# Chromium to a page that is not blank. Bad input exits 2 with one message and writes nothing.
# Chromium is required: without it the test fails (scripts/install-deps.sh installs it).
# A sweep run with -N 2 cycles plots one curve per cycle.
source "$(dirname "$0")/lib.sh"

src=${SCALEPROBE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
plot="$src/scripts/plot/scaleprobe-plot"
py=/usr/bin/python3 # the interpreter of the script's #! line, with python3-h5py and -matplotlib
export SCALEPROBE

# check_pngs LABEL=FILE...: one line per file, "ok LABEL: ..." when it is a PNG (signature) of
# at least 10 kB that matplotlib reads back and that is not one flat colour, else "bad LABEL: why"
check_pngs() {
  "$py" - "$@" <<'EOF'
import sys
import numpy as np
import matplotlib
matplotlib.use("Agg")
import matplotlib.image as mpimg
for arg in sys.argv[1:]:
    label, path = arg.split("=", 1)
    try:
        data = open(path, "rb").read()
        assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
        assert len(data) >= 10000, "%d bytes, fewer than 10000" % len(data)
        img = (mpimg.imread(path)[:, :, :3] * 255).astype(np.int64)
        packed = (img[:, :, 0] << 16 | img[:, :, 1] << 8 | img[:, :, 2]).ravel()
        # share of pixels unlike the commonest colour: a blank page or empty axes is about 0
        other = 1.0 - np.bincount(packed).max() / len(packed)
        assert img.std() > 0 and other > 0.01, "blank: %.4f not background" % other
        print("ok %s: %dx%d, %d bytes, %.1f%% not background" %
              (label, img.shape[1], img.shape[0], len(data), 100 * other))
    except Exception as exc:
        print("bad %s: %s" % (label, exc))
EOF
}

# report_pngs LINES: each "ok ..." line of check_pngs is a passed check, any other a failure
report_pngs() {
  while read -r verdict rest; do
    [ "$verdict" = ok ] && ok "$rest" || not_ok "$verdict $rest"
  done <<<"$1"
}

# check_html FILE IMAGES: no URL in src/href, no script, at least IMAGES embedded PNGs that decode
check_html() {
  "$py" - "$1" "$2" <<'EOF'
import base64, html.parser, sys
path, want = sys.argv[1], int(sys.argv[2])
class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.bad, self.images = [], 0
    def handle_starttag(self, tag, attrs):
        if tag in ("script", "link", "iframe", "object", "embed"):
            self.bad.append(tag)
        for name, value in attrs:
            v = (value or "").strip().lower()
            if name in ("src", "href") and (v.startswith(("http:", "https:", "//", "file:"))):
                self.bad.append("%s=%s" % (name, value))
            if tag == "img" and name == "src":
                assert v.startswith("data:image/png;base64,"), value[:40]
                assert base64.b64decode(value.split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"
                self.images += 1
text = open(path, encoding="utf-8").read()
p = P()
p.feed(text)
assert not p.bad, "external references: %s" % p.bad
assert "url(" not in text and "@import" not in text, "CSS loads something"
assert p.images >= want, "%d embedded images, %d expected" % (p.images, want)
print("%d embedded images, %d bytes" % (p.images, len(text)))
EOF
}

# screenshot HTML PNG: headless Chromium renders the page
chromium_bin=$(command -v chromium || command -v chromium-browser || true)
screenshot() {
  rm -f "$2"
  timeout 60 "$chromium_bin" --headless --no-sandbox --disable-gpu --user-data-dir="$TMP/chrome" \
    --screenshot="$2" --window-size=1280,2000 "file://$1" >"$TMP/chrome.log" 2>&1
}

# shellcheck disable=SC2054
sweep=(coll --collectives all_reduce,all_gather -b 1K -e 64K -f 4 -n 8 -k 1)
sp_mpirun 2 "${sweep[@]}" -O "$TMP/A.h5" >/dev/null 2>&1 &&
  NCCL_ALGO=Ring sp_mpirun 2 "${sweep[@]}" --timeline-events 0 -O "$TMP/B.h5" >/dev/null 2>&1 &&
  sp_mpirun 4 proxy --hidden 256 --ffn 1024 --heads 8 --seq 64 --layers 4 --vocab 512 --tflops 5 \
    --pp 2 --dp 2 --steps 3 -O "$TMP/P.h5" >/dev/null 2>&1 || { not_ok "the three runs"; finish; }

pngs=()
for c in "busbw A.h5" "busbw A.h5 B.h5" "timeline P.h5" "timeline A.h5 --steps 2" "bubble P.h5" \
  "latency A.h5" "ranks A.h5" "ratio A.h5 B.h5" "ratio A.h5 B.h5 --vs B.h5 A.h5"; do
  out="$TMP/$(echo "$c" | tr -c 'a-zA-Z0-9\n' _).png"
  # shellcheck disable=SC2086
  (cd "$TMP" && "$plot" $c -o "$out") 2>"$TMP/err" || { not_ok "$c: rc=$?"; cat "$TMP/err"; }
  pngs+=("$c=$out")
done
report_pngs "$(check_pngs "${pngs[@]}")"

# what each picture's axes are: the PNG's Description (one "title: x SCALE, y SCALE" per axes)
describe() {
  "$py" - "$1" <<'EOF'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
pos = 8
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind in (b"tEXt", b"zTXt", b"iTXt") and body.startswith(b"Description\0"):
        text = body[len(b"Description\0"):]
        if kind == b"zTXt":
            text = zlib.decompress(text[1:])
        elif kind == b"iTXt":
            text = text[4:].split(b"\0", 1)[1]
        print(text.decode())
    pos += 12 + n
EOF
}
while IFS='|' read -r name want; do
  got=$(describe "$TMP/$name.png")
  [[ "$got" == *"$want"* ]] && ok "$name.png: $want" || not_ok "$name.png: '$got' lacks '$want'"
done <<'EOF'
busbw_A_h5|bandwidth against size (band: at the 95% CI of the median time; solid out-of-place, dashed in-place): x log, y log
latency_A_h5|latency against size (band: 95% CI of the median; solid out-of-place, dashed in-place): x log, y log
ratio_A_h5_B_h5|B/A per point: A (1 run(s)) vs B (1 run(s)): x log, y log
ratio_A_h5_B_h5___vs_B_h5_A_h5|B/A per point: A (2 run(s)) vs B (2 run(s)): x log, y log
ranks_A_h5|per-rank time of A (/coll/rank_times; ip: in-place): x linear, y linear
timeline_P_h5|timeline of P: first 2 measured step(s)
bubble_P_h5|bubble fraction of P (mean over each stage's ranks)
EOF

# one sweep file: its run info, one table row per stored point with the numbers report prints
"$plot" html "$TMP/A.h5" -o "$TMP/a.html" 2>"$TMP/err"
rc=$?
rows=$(h5dump -A 0 -H -d /coll/results "$TMP/A.h5" | grep -o 'SIMPLE { ( [0-9]*' | grep -o '[0-9]*$')
trs=$(grep -o '<tr class="[a-z]*"><td class="l">all_[a-z]*</td>' "$TMP/a.html" | wc -l)
# the first all_reduce line of report: size, count, ..., out-of-place time, algbw, busbw; the
# HTML's first row must hold the same numbers (to the precision report prints)
read -r _ _ _ _ _ t_us algbw busbw _ < <("$SCALEPROBE" report "$TMP/A.h5" | grep -m1 '^ *1024 ')
same=$("$py" - "$TMP/a.html" "$t_us" "$algbw" "$busbw" <<'EOF'
import decimal, re, sys
row = re.search(r'<tr class="[a-z]*"><td class="l">all_reduce</td>(.*?)</tr>',
                open(sys.argv[1]).read()).group(1)
cells = re.findall(r"<td[^>]*>([^<]*)</td>", row)  # size, count, type, redop, root, place, ...
html = [float(c) for c in cells[7:10]]
# report fits a number to its column (12200.8, 1.2e+05), and prints a time from 1 ms on with its
# unit (12.00ms, 1.5s: sp_format_time_us): equal within half its last digit, in us, plus the
# HTML's own rounding to 2 decimals
def parse(w):
    scale = 1e3 if w.endswith("ms") else 1e6 if w.endswith("s") else 1.0
    num = w[:-2] if w.endswith("ms") else w[:-1] if w.endswith("s") else w
    return float(num) * scale, 0.5 * 10.0 ** decimal.Decimal(num).as_tuple().exponent * scale
want = [parse(w) for w in sys.argv[2:5]]
print("yes" if all(abs(h - v) <= t + 0.005 + 1e-9 for h, (v, t) in zip(html, want))
      else "no: %s against %s" % (html, sys.argv[2:5]))
EOF
)
if [ "$rc" -eq 0 ] && msg=$(check_html "$TMP/a.html" 1 2>&1) && [ "$trs" = "$rows" ] &&
  [ "$same" = yes ] &&
  grep -q 'mpirun, pml' "$TMP/a.html" && grep -q '>late rank</th>' "$TMP/a.html" && grep -q 'coll --collectives all_reduce,all_gather' "$TMP/a.html"; then
  ok "html of a sweep: self-contained ($msg), $trs rows, report's time $t_us, $algbw/$busbw GB/s"
else
  not_ok "html of a sweep: rc=$rc rows=$trs of $rows, first row $same: $msg"
  cat "$TMP/err"
fi

# one proxy file: per-stage bubble as report prints it, the timeline and the heat map
"$plot" html "$TMP/P.h5" -o "$TMP/p.html" 2>"$TMP/err"
rc=$?
# (report's non_compute column is the stored bubble_frac the HTML shows; its idle column is the
# pipeline idle alone)
bubbles=$("$SCALEPROBE" report "$TMP/P.h5" | awk '/^# +stage +idle/{s=1; next} s && /^# +[01] /{print $6}')
found=0
for b in $bubbles; do grep -q "<td class=\"\">$b</td>" "$TMP/p.html" && found=$((found + 1)); done
if [ "$rc" -eq 0 ] && msg=$(check_html "$TMP/p.html" 2 2>&1) && [ "$found" = 2 ] &&
  grep -q 'schedule' "$TMP/p.html" && grep -q 'dp 2 x pp 2 x tp 1' "$TMP/p.html"; then
  ok "html of a proxy: self-contained ($msg), both stages' bubble as report prints it"
else
  not_ok "html of a proxy: rc=$rc, $found of 2 stage bubbles ($bubbles): $msg"
  cat "$TMP/err"
fi

# two sweep files: compare's differences and verdicts, rows coloured by verdict, both curves
"$plot" html "$TMP/A.h5" "$TMP/B.h5" -o "$TMP/c.html" 2>"$TMP/err"
rc=$?
"$SCALEPROBE" compare "$TMP/A.h5" "$TMP/B.h5" --json >"$TMP/cmp.json" 2>/dev/null
read -r n_slow n_fast n_noise < <("$py" -c 'import json, sys
v = [p["verdict"] for p in json.load(open(sys.argv[1]))["points"]]
print(v.count("slower"), v.count("faster"), len(v) - v.count("slower") - v.count("faster"))' "$TMP/cmp.json")
if [ "$rc" -eq 0 ] && msg=$(check_html "$TMP/c.html" 1 2>&1) &&
  [ "$(grep -o '<tr class="slower">' "$TMP/c.html" | wc -l)" = "$n_slow" ] &&
  [ "$(grep -o '<tr class="noise">' "$TMP/c.html" | wc -l)" = "$n_noise" ] &&
  [ "$(grep -o '<tr class="faster">' "$TMP/c.html" | wc -l)" = "$n_fast" ] &&
  [ $((n_slow + n_noise + n_fast)) = 16 ] &&
  grep -q 'environment NCCL_ALGO: A (unset), B Ring' "$TMP/c.html"; then
  ok "html comparison: self-contained ($msg), $n_slow slower / $n_fast faster / $n_noise grey (no verdict: one run a side) as compare says, NCCL_ALGO listed"
else
  not_ok "html comparison: rc=$rc, compare: $n_slow slower $n_fast faster $n_noise noise: $msg"
  cat "$TMP/err"
fi

# the sweep's page leads with report's summary, then shows bandwidth, latency and the per-rank map
first=$(grep -o '<h2>[^<]*</h2>' "$TMP/a.html" | head -1)
peak=$("$SCALEPROBE" report "$TMP/A.h5" | grep -m1 '^#   all_reduce ' | sed 's/&/\&amp;/g; s/</\&lt;/g; s/>/\&gt;/g')
if msg=$(check_html "$TMP/a.html" 3 2>&1) && [ "$first" = "<h2>Summary (scaleprobe report)</h2>" ] &&
  grep -qF "$peak" "$TMP/a.html" && grep -q 'alt="per-rank time heat map"' "$TMP/a.html" &&
  grep -q 'alt="time per operation against size"' "$TMP/a.html"; then
  ok "html of a sweep leads with report's summary ($msg: bandwidth, latency, per-rank map)"
else
  not_ok "html of a sweep: first section '$first', summary line '$peak': $msg"
fi

# repeated runs per side (A, B --vs B, A): compare's summary first, the B/A picture with CIs
"$plot" html "$TMP/A.h5" "$TMP/B.h5" --vs "$TMP/B.h5" "$TMP/A.h5" -o "$TMP/r.html" 2>"$TMP/err"
rc=$?
if [ "$rc" -eq 0 ] && msg=$(check_html "$TMP/r.html" 2 2>&1) &&
  [ "$(grep -o '<h2>[^<]*</h2>' "$TMP/r.html" | head -1)" = "<h2>Summary</h2>" ] &&
  grep -q '2 run(s) of A, 2 of B; 16 points compared' "$TMP/r.html" &&
  grep -q 'alt="B/A ratio with 95% CI per point"' "$TMP/r.html"; then
  ok "html of 2 runs --vs 2 runs: summary first, B/A per point with CI ($msg)"
else
  not_ok "html --vs: rc=$rc: $msg"
  cat "$TMP/err"
fi

# text from the file is escaped: a label with markup in a copy's name
cp "$TMP/A.h5" "$TMP/x<b>y.h5"
"$plot" html "$TMP/x<b>y.h5" -o "$TMP/x.html" 2>"$TMP/err" && grep -q 'x&lt;b&gt;y' "$TMP/x.html" &&
  ! grep -q 'x<b>y' "$TMP/x.html" && ok "html escapes text (a file named x<b>y.h5)" ||
  not_ok "html escaping"

if [ -z "$chromium_bin" ]; then
  not_ok "chromium is not installed (scripts/install-deps.sh installs it): the reports cannot be rendered"
else
  shots=()
  for h in a p c r; do
    screenshot "$TMP/$h.html" "$TMP/shot-$h.png" || { not_ok "chromium $h.html: rc=$?"; tail -5 "$TMP/chrome.log"; }
    shots+=("chromium renders $h.html=$TMP/shot-$h.png")
  done
  report_pngs "$(check_pngs "${shots[@]}")"
fi

# bad input: exit 2, one message, no output
printf 'not hdf5\n' >"$TMP/text.h5"
while IFS='|' read -r what args; do
  rm -f "$TMP/bad.out"
  # shellcheck disable=SC2086
  (cd "$TMP" && env ${args%%--*} "$plot" ${args#*--} -o "$TMP/bad.out") >/dev/null 2>"$TMP/err"
  rc=$?
  n=$(grep -c "^scaleprobe-plot: error" "$TMP/err")
  if [ "$rc" -eq 2 ] && [ "$n" = 1 ] && [ ! -e "$TMP/bad.out" ]; then
    ok "$what: exit 2, $(cat "$TMP/err")"
  else
    not_ok "$what: rc=$rc, $n messages"
    cat "$TMP/err"
  fi
done <<'EOF'
a missing file|X=1 --busbw nope.h5
not an HDF5 file|X=1 --html text.h5
bubble of a sweep file|X=1 --bubble A.h5
busbw of a proxy file|X=1 --busbw A.h5 P.h5
timeline of a file without one|X=1 --timeline B.h5
html of a sweep against a proxy|X=1 --html A.h5 P.h5
html of two files, no scaleprobe binary|SCALEPROBE= PATH=/usr/bin:/bin --html A.h5 B.h5
html of three files|X=1 --html A.h5 B.h5 P.h5
timeline --steps 0|X=1 --timeline P.h5 --steps 0
EOF
# a sweep run with -N 2 cycles: one curve per cycle (each sizes once, in order), named by cycle
sp_mpirun 2 coll --collectives all_reduce -b 1K -e 64K -f 4 -n 8 -k 1 -N 2 -O "$TMP/N.h5" \
  >/dev/null 2>&1 || not_ok "the -N 2 sweep"
got=$(PYTHONPATH="$src/scripts/plot" "$py" - "$TMP/N.h5" <<'PY' 2>&1
import sys, h5py
import numpy as np
from sp_plot_figures import Sweep, sweep_curves
with h5py.File(sys.argv[1], "r") as f:
    curves = sweep_curves(Sweep(sys.argv[1], f), "both")
assert all(np.all(np.diff(c[1]) > 0) for c in curves), [list(c[1]) for c in curves]
print("; ".join(sorted(c[0] for c in curves)))
PY
)
want="all_reduce in-place cycle 1 of 2; all_reduce in-place cycle 2 of 2; all_reduce out-of-place cycle 1 of 2; all_reduce out-of-place cycle 2 of 2"
[ "$got" = "$want" ] && ok "a -N 2 sweep: one curve per cycle and placement, sizes once each" ||
  not_ok "-N 2 curves: $got"
finish
