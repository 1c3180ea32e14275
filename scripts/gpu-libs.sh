# Sourced by the bundle's wrapper (scripts/bundle-env.sh) and scripts/gpu-check.sh: where a GPU
# machine keeps NCCL, cuBLAS and the CUDA runtime, and which python3 has h5py. Nothing here
# installs, builds or uses the network.

# The folders holding NCCL, cuBLAS or the CUDA runtime, one per line, in search order:
# $NCCL_HOME/lib{,64}, $CUDA_HOME/lib64 and the usual CUDA folders, then the lib folders of the
# Python `nvidia-*` wheels (nvidia.nccl, nvidia.cublas, nvidia.cuda_runtime, nvidia/cu13, ...)
# of the python3 given as $1 (default: the first on PATH). Only folders that hold one of them.
sp_gpu_lib_dirs() {
  local py=${1:-python3}
  local d f
  {
    for d in "${NCCL_HOME:+$NCCL_HOME/lib}" "${NCCL_HOME:+$NCCL_HOME/lib64}" \
      "${CUDA_HOME:+$CUDA_HOME/lib64}" "${CUDA_HOME:+$CUDA_HOME/lib}" \
      /usr/local/cuda/lib64 /usr/local/cuda/lib /usr/local/nccl/lib /usr/lib/x86_64-linux-gnu \
      /usr/lib64; do
      [ -n "$d" ] && echo "$d"
    done
    if command -v "$py" >/dev/null 2>&1; then
      # every folder under the `nvidia` namespace package that holds one of the libraries
      "$py" - 2>/dev/null <<'PYEOF'
import os
try:
    import nvidia
except ImportError:
    raise SystemExit(0)
want = ("libnccl.so", "libcublas.so", "libcudart.so")
for base in list(nvidia.__path__):
    for path, dirs, files in os.walk(base):
        if any(f.startswith(w) for f in files for w in want):
            print(path)
PYEOF
    fi
  } | while read -r d; do
    for f in "$d"/libnccl.so* "$d"/libcublas.so* "$d"/libcudart.so*; do
      if [ -e "$f" ]; then
        echo "$d"
        break
      fi
    done
  done | awk '!seen[$0]++'
}

# The first file matching `NAME*` (e.g. libnccl.so) in the folders of sp_gpu_lib_dirs; empty
# when none.
sp_gpu_find_lib() {
  local name=$1 py=${2:-python3} d f
  while read -r d; do
    for f in "$d/$name".*[0-9] "$d/$name"; do
      if [ -e "$f" ]; then
        echo "$f"
        return 0
      fi
    done
  done < <(sp_gpu_lib_dirs "$py")
  return 1
}

# The python3 that imports h5py: the one on PATH first, then the usual others; empty if none.
sp_python_h5py() {
  local p
  for p in "$(command -v python3 2>/dev/null)" /usr/local/bin/python3 /usr/bin/python3 \
    /opt/conda/bin/python3; do
    if [ -n "$p" ] && [ -x "$p" ] && "$p" -c 'import h5py' >/dev/null 2>&1; then
      echo "$p"
      return 0
    fi
  done
  return 1
}
