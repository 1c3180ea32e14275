#!/usr/bin/env bash
# The bundle on a machine with nothing but Debian's minimal base (no MPI, HDF5, hwloc or CUDA):
# debootstrap --variant=minbase makes the root (cached in $SP_CHROOT_CACHE, default
# /var/cache/scaleprobe/chroot-<suite>), the bundle's archive is unpacked into it, and inside
# chroot a 1-rank and a 2-rank host-backend sweep and a 1-rank proxy run and are read back with
# the bundled `scaleprobe report`. Fails, with the reason, where the root cannot be had.
set -uo pipefail
: "${SCALEPROBE_BUILD_DIR:?}" "${SCALEPROBE_SOURCE_DIR:?}"
top=$SCALEPROBE_SOURCE_DIR
failures=0
checks=0
ok() { checks=$((checks + 1)); echo "ok   - $*"; }
not_ok() { checks=$((checks + 1)); failures=$((failures + 1)); echo "FAIL - $*"; }
cannot() { echo "FAIL - the chroot test cannot run: $*"; exit 1; }
finish() { echo "$((checks - failures)) passed, $failures failed"; [ "$failures" -eq 0 ]; exit $?; }

[ "$(id -u)" -eq 0 ] || cannot "it needs root (debootstrap, chroot, mounts); run it as root"
for tool in debootstrap chroot unshare mount; do
  command -v "$tool" >/dev/null 2>&1 || PATH=$PATH:/usr/sbin:/sbin
  command -v "$tool" >/dev/null 2>&1 || cannot "$tool not found (scripts/install-deps.sh installs debootstrap)"
done

. /etc/os-release
suite=${SP_CHROOT_SUITE:-${VERSION_CODENAME:-bookworm}}
# the machine's own Debian mirror: a `URIs:` (deb822) or `deb URL` line, comments skipped
mirror=${SP_CHROOT_MIRROR:-$(cat /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list \
  /etc/apt/sources.list 2>/dev/null | grep -v '^[[:space:]]*#' |
  grep -oE '^(URIs:[[:space:]]*|deb[[:space:]]+(\[[^]]*\][[:space:]]+)?)https?://[^[:space:]]+' |
  grep -oE 'https?://[^[:space:]]+' | grep -v -e security -e updates | head -1)}
mirror=${mirror:-http://deb.debian.org/debian}
root=${SP_CHROOT_CACHE:-/var/cache/scaleprobe/chroot-$suite}
work=$(mktemp -d /tmp/sp-chroot.XXXXXX)
trap 'rm -rf "$work"' EXIT

# ---- the root, made once (a half-made one has no stamp and is made again) ----
if [ ! -e "$root/.scaleprobe-complete" ]; then
  rm -rf "$root"
  mkdir -p "$(dirname "$root")"
  echo "# debootstrap --variant=minbase $suite $root $mirror"
  start=$(date +%s)
  if ! debootstrap --variant=minbase "$suite" "$root" "$mirror" >"$work/debootstrap.log" 2>&1; then
    tail -15 "$work/debootstrap.log"
    cannot "debootstrap --variant=minbase $suite from $mirror failed (network? see above)"
  fi
  touch "$root/.scaleprobe-complete"
  echo "# root made in $(($(date +%s) - start)) s"
fi
for pkg in openmpi-bin libopenmpi3 libhdf5-103-1 libhdf5-openmpi-103-1 libhwloc15 libnccl2 libcudart12; do
  if chroot "$root" dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed"; then
    cannot "the cached root $root has $pkg installed; remove $root"
  fi
done
ok "minimal root $root ($suite): none of MPI, HDF5, hwloc, NCCL, CUDA installed"

# ---- the bundle, from this build, as it travels (the archive) ----
if "$top/scripts/gpu-bundle.sh" --build "$SCALEPROBE_BUILD_DIR" --out "$work/bundle" \
  >"$work/bundle.log" 2>&1; then
  ok "gpu-bundle.sh: $(grep '^# bundle:' "$work/bundle.log" | sed 's/.*archive //')"
else
  sed 's/^/    /' "$work/bundle.log" | tail -40
  df -h "$work" | sed 's/^/    /'
  not_ok "gpu-bundle.sh failed (its last lines above)"
  finish
fi
rm -rf "$root/opt/scaleprobe-bundle"
tar -C "$root/opt" -xJf "$work/bundle/scaleprobe-bundle.tar.xz" || cannot "cannot unpack the bundle"

# ---- inside the root: proc, sys, shm and tmp in a private mount namespace, gone at exit ----
cat >"$root/opt/scaleprobe-bundle/chroot-run.sh" <<'INNER'
#!/bin/bash
# run inside the chroot: every command bounded, its output under /tmp/out
sp=/opt/scaleprobe-bundle/sp
out=/tmp/out
mkdir -p $out && cd /tmp
small="--hidden 256 --ffn 1024 --heads 8 --seq 128 --layers 4 --vocab 1024 --tflops 2 --steps 2"
timeout 60 $sp ldd /opt/scaleprobe-bundle/bin/scaleprobe >$out/ldd 2>&1; echo "ldd $?" >>$out/rc
timeout 120 $sp scaleprobe coll -b 8 -e 1M -f 32 --max-time 0.2 -O /tmp/one.h5 >$out/one 2>$out/one.err
echo "one $?" >>$out/rc
timeout 180 $sp mpirun -np 2 scaleprobe coll --backend host --collectives all -b 8 -e 256K -f 64 --max-time 0.2 \
  -O /tmp/two.h5 </dev/null >$out/two 2>$out/two.err
echo "two $?" >>$out/rc
timeout 120 $sp scaleprobe proxy --backend host $small -O /tmp/proxy.h5 >$out/proxy 2>$out/proxy.err
echo "proxy $?" >>$out/rc
for f in one two proxy; do
  timeout 60 $sp scaleprobe report /tmp/$f.h5 >$out/report.$f 2>&1
  echo "report.$f $?" >>$out/rc
done
INNER
chmod +x "$root/opt/scaleprobe-bundle/chroot-run.sh"
mkdir -p "$root/proc" "$root/sys" "$root/dev/shm" "$root/tmp"
unshare --mount --propagation private bash -c '
  set -e
  mount -t proc proc "$1/proc"
  mount -t sysfs -o ro sysfs "$1/sys"
  mount -t tmpfs tmpfs "$1/dev/shm"
  mount -t tmpfs tmpfs "$1/tmp"
  chroot "$1" /opt/scaleprobe-bundle/chroot-run.sh
  cp -r "$1/tmp/out" "$2/"
' _ "$root" "$work" || cannot "unshare/mount/chroot failed (a container without CAP_SYS_ADMIN?)"
out=$work/out
rc_of() { awk -v k="$1" '$1 == k { print $2 }' "$out/rc"; }
show() { sed 's/^/     | /' "$@" | tail -15; }

if [ "$(rc_of ldd)" = 0 ] && ! grep -q "not found" "$out/ldd"; then
  ok "inside the root, ldd of the bundled scaleprobe finds every library"
else
  not_ok "ldd inside the root: $(grep "not found" "$out/ldd" | tr -s ' \t' ' ' | paste -sd, -)"
fi
if [ "$(rc_of one)" = 0 ] && grep -q "Out of bounds values : 0 OK" "$out/one" &&
  grep -q "backend auto -> host" "$out/one.err"; then
  ok "1 rank without mpirun (singleton), --backend auto -> host: exit 0, 0 wrong values"
else
  not_ok "1-rank sweep: exit $(rc_of one)"
  show "$out/one" "$out/one.err"
fi
if [ "$(rc_of two)" = 0 ] && grep -q "Out of bounds values : 0 OK" "$out/two"; then
  ok "2 ranks under the bundled mpirun, every collective: exit 0, 0 wrong values"
else
  not_ok "2-rank sweep: exit $(rc_of two)"
  show "$out/two" "$out/two.err"
fi
if [ "$(rc_of proxy)" = 0 ] && grep -q "status complete" "$out/proxy"; then
  ok "1-rank proxy: exit 0, file complete"
else
  not_ok "1-rank proxy: exit $(rc_of proxy)"
  show "$out/proxy" "$out/proxy.err"
fi
for f in one two proxy; do
  if [ "$(rc_of "report.$f")" = 0 ] && grep -q "status complete" "$out/report.$f"; then
    ok "bundled scaleprobe report reads $f.h5: $(grep -m1 'ranks on' "$out/report.$f" | sed 's/^# //')"
  else
    not_ok "report $f.h5: exit $(rc_of "report.$f")"
    show "$out/report.$f"
  fi
done
grep -q "^# 2 ranks on 1 nodes" "$out/report.two" && ok "the 2-rank file says 2 ranks" ||
  not_ok "the 2-rank report does not say 2 ranks"
finish
