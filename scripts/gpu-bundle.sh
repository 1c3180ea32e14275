#!/usr/bin/env bash
# Packs scaleprobe for a machine that has only glibc and the NVIDIA driver (NCCL, cuBLAS and the
# CUDA runtime from its Python wheels or usual folders): the binaries, every shared library they
# and Open MPI's runtime load other than glibc and the GPU libraries, and Open MPI's launcher,
# components and help files relocated under the bundle (OPAL_PREFIX). Prints what it took from
# where and the size of the archive, which must stay within 48 MiB.
#   scripts/gpu-bundle.sh [--build DIR] [--out DIR]
# --build DIR: pack that build (any configuration). Without it, a CUDA build is made in
# build-bundle/ (-DSCALEPROBE_CUDA=ON). The bundle: DIR/scaleprobe-bundle/ and
# DIR/scaleprobe-bundle.tar.xz (default DIR: bundle/, git-ignored).
set -euo pipefail
# ldconfig, strip and objdump where a minimal environment's PATH leaves out the sbin folders
PATH=$PATH:/usr/sbin:/sbin
# a failing step names itself (set -e alone exits without a word)
trap 'echo "gpu-bundle.sh: line $LINENO failed (exit $?): $BASH_COMMAND" >&2' ERR
top=$(cd "$(dirname "$0")/.." && pwd)
build=""
out=$top/bundle
limit_mib=48
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$(cd "$2" && pwd); shift 2 ;;
    --out) mkdir -p "$2"; out=$(cd "$2" && pwd); shift 2 ;;
    *) echo "gpu-bundle.sh: unknown argument $1 (see the header of this script)" >&2; exit 2 ;;
  esac
done

if [ -z "$build" ]; then
  build=$top/build-bundle
  echo "# CUDA build into $build"
  "$top/scripts/install-deps.sh"
  mkdir -p "$build"
  cmake -S "$top" -B "$build" -DSCALEPROBE_CUDA=ON -DSCALEPROBE_WERROR=ON >"$build/configure.log" 2>&1 ||
    { tail -20 "$build/configure.log"; exit 1; }
  cmake --build "$build" -j"$(nproc)" --target scaleprobe gpu_test_nccl_verify \
    gpu_test_gemm_rate >/dev/null
fi
[ -x "$build/scaleprobe" ] || { echo "gpu-bundle.sh: no $build/scaleprobe" >&2; exit 1; }

name=scaleprobe-bundle
dest=$out/$name
rm -rf "$dest" "$out/$name.tar.xz"
mkdir -p "$dest/bin" "$dest/lib" "$dest/scripts" "$dest/ompi/bin" "$dest/ompi/lib/pmix" \
  "$dest/ompi/share"
manifest=$dest/MANIFEST.txt
: >"$manifest"
took() { printf '%-44s <- %s\n' "$1" "$2" >>"$manifest"; }

# glibc (the target's own, like the driver) and the GPU libraries the target provides
is_target_lib() {
  case $(basename "$1") in
    linux-vdso.so.* | ld-linux*.so.* | libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | \
      librt.so.* | libresolv.so.* | libutil.so.* | libanl.so.* | libmvec.so.*) return 0 ;;
    libcuda.so* | libnvidia-*.so* | libnccl.so* | libcublas*.so* | libcudart.so*) return 0 ;;
  esac
  return 1
}

# the shared libraries FILE loads (ldd's resolved paths), those not from the target, into lib/
copy_deps() {
  local f=$1 lib
  ldd "$f" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $2 == "=>" && $3 == "not" { print "MISSING " $1 }' |
    while read -r lib rest; do
      if [ "$lib" = MISSING ]; then
        echo "gpu-bundle.sh: $f needs $rest, which is not found here" >&2
        continue
      fi
      is_target_lib "$lib" && continue
      [ -e "$dest/lib/$(basename "$lib")" ] && continue
      cp -L "$lib" "$dest/lib/"
      took "lib/$(basename "$lib")" "$(readlink -f "$lib")"
    done
}

# ---- scaleprobe and the GPU test binaries ----
bins=("$build/scaleprobe")
for t in "$build"/tests/gpu/gpu_*; do
  [ -x "$t" ] && bins+=("$t")
done
for b in "${bins[@]}"; do
  cp "$b" "$dest/bin/"
  strip --strip-unneeded "$dest/bin/$(basename "$b")"
  took "bin/$(basename "$b")" "$b (stripped)"
  copy_deps "$b"
done

# ---- Open MPI's runtime, in Debian's layout under ompi/ (what OPAL_PREFIX expects) ----
mpirun=$(readlink -f "$(command -v mpirun)")
ompi_bindir=$(dirname "$mpirun")
ompi_prefix=$(ompi_info --path prefix --parsable 2>/dev/null | sed -n 's/^path:prefix://p')
ompi_pkglib=$(ompi_info --path pkglibdir --parsable 2>/dev/null | sed -n 's/^path:pkglibdir://p')
ompi_pkgdata=$(ompi_info --path pkgdatadir --parsable 2>/dev/null | sed -n 's/^path:pkgdatadir://p')
ompi_prefix=${ompi_prefix:-/usr}
for exe in "$mpirun" "$ompi_bindir/orted"; do
  [ -e "$exe" ] || continue
  cp -L "$exe" "$dest/ompi/bin/"
  took "ompi/bin/$(basename "$exe")" "$exe"
  copy_deps "$exe"
done
ln -sf "$(basename "$mpirun")" "$dest/ompi/bin/mpirun"
ln -sf "$(basename "$mpirun")" "$dest/ompi/bin/mpiexec"
rel_pkglib=${ompi_pkglib#"$ompi_prefix"/}
mkdir -p "$dest/ompi/$rel_pkglib"
for c in "$ompi_pkglib"/*.so; do
  cp -L "$c" "$dest/ompi/$rel_pkglib/"
  copy_deps "$c"
done
took "ompi/$rel_pkglib/ ($(ls "$ompi_pkglib"/*.so | wc -l) components)" "$ompi_pkglib"
rel_pkgdata=${ompi_pkgdata#"$ompi_prefix"/}
mkdir -p "$dest/ompi/$rel_pkgdata"
cp -rL "$ompi_pkgdata"/. "$dest/ompi/$rel_pkgdata/"
took "ompi/$rel_pkgdata/ (help files)" "$ompi_pkgdata"
# PMIx (Open MPI's launcher runs a PMIx server): its plugins and help files
# (awk reads to the end: exiting at the match would kill ldconfig with SIGPIPE, 141 under pipefail)
src_pmix=$(ldconfig -p | awk '/libpmix\.so\.2 / && !found { print $NF; found = 1 }')
if [ -n "$src_pmix" ]; then
  pmix_root=$(dirname "$(dirname "$(readlink -f "$src_pmix")")")
  if [ -d "$pmix_root/lib/pmix" ]; then
    for c in "$pmix_root"/lib/pmix/*.so; do
      cp -L "$c" "$dest/ompi/lib/pmix/"
      copy_deps "$c"
    done
    took "ompi/lib/pmix/ (PMIx plugins)" "$pmix_root/lib/pmix"
  fi
  if [ -d "$pmix_root/share" ]; then
    mkdir -p "$dest/ompi/pmix"
    cp -rL "$pmix_root/share" "$dest/ompi/pmix/"
    took "ompi/pmix/share (PMIx help files)" "$pmix_root/share"
  fi
fi

# ---- the wrapper and the GPU check ----
cp "$top/scripts/bundle-env.sh" "$dest/sp"
cp "$top/scripts/gpu-libs.sh" "$top/scripts/gpu-check.sh" "$top/scripts/gpu-check-figures.py" \
  "$dest/scripts/"
took "sp, scripts/" "$top/scripts (bundle-env.sh, gpu-libs.sh, gpu-check.sh and its figures)"
glibc=$(objdump -T "$dest"/bin/* "$dest"/lib/*.so* "$dest"/ompi/bin/* 2>/dev/null |
  grep -o 'GLIBC_[0-9.]*' | sort -t. -k1,1 -k2,2n -V | tail -1)
# a CUDA build has the nccl backend's NCCL loader in it
if grep -q ncclCommInitRankConfig "$dest/bin/scaleprobe"; then
  cuda="yes (NCCL, cuBLAS and the CUDA driver from the target)"
else
  cuda="no: host backend only (configure with CUDA and NCCL for the GPU)"
fi
{
  echo "# built $(date -u +%FT%TZ) from $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo '?')"
  echo "# needs glibc with ${glibc:-?}; CUDA build: $cuda"
} >>"$manifest"

# ---- archive ----
tar -C "$out" -cf - "$name" | xz -T0 -6 >"$out/$name.tar.xz"
size=$(stat -c %s "$out/$name.tar.xz")
unpacked=$(du -sb "$dest" | cut -f1)
cat "$manifest"
printf '# bundle: %s (%.1f MiB unpacked), archive %s: %.1f MiB (limit %d MiB)\n' "$dest" \
  "$(awk -v b="$unpacked" 'BEGIN { print b / 1048576 }')" "$out/$name.tar.xz" \
  "$(awk -v b="$size" 'BEGIN { print b / 1048576 }')" \
  "$limit_mib"
if [ "$size" -gt $((limit_mib * 1048576)) ]; then
  echo "gpu-bundle.sh: the archive is over $limit_mib MiB" >&2
  exit 1
fi
