#!/usr/bin/env bash
# Environment capture by allow-list, secrets redacted: planted variables with secret-looking
# names (one under an allow-listed prefix, one outside it) and credentials planted inside
# allow-listed values (URL user-info, sshpass -p, password=) never reach a result file, neither the
# sweep's nor the proxy's, while an ordinary allow-listed variable does.
source "$(dirname "$0")/lib.sh"

export NCCL_IB_SECRET_KEY=planted-nccl-secret-4711 MY_API_TOKEN=planted-token-4711
export UCX_PASSWORD=planted-ucx-password-4711 NCCL_DEBUG=WARN
# credentials inside the values of allow-listed names (issue 21): a URL's user-info, an ssh
# wrapper's -p argument, a password in a free-text comment
export NCCL_PLANTED_URL=https://user:planted-url-4711@mirror.example.com/x
export OMPI_MCA_plm_rsh_agent_planted="sshpass -p planted-sshpass-4711 ssh"
export SLURM_JOB_COMMENT="nightly password=planted-comment-4711 retry"
for cmd in "coll -b 1K -e 1K -n 2 -w 1" "proxy --hidden 256 --ffn 1024 --heads 8 --seq 64 --layers 2 --vocab 512 --tflops 5 --steps 1"; do
  f="$TMP/${cmd%% *}.h5"
  # shellcheck disable=SC2086
  sp_mpirun 2 $cmd -O "$f" >"$TMP/out" 2>&1 || { not_ok "$cmd failed"; tail -3 "$TMP/out"; continue; }
  if grep -a -q 'planted-' "$f" || h5dump "$f" 2>/dev/null | grep -q 'planted-'; then
    not_ok "${cmd%% *}: a planted secret value is in the file"
  else
    ok "${cmd%% *}: no planted secret value in the file (raw bytes and h5dump)"
  fi
  envattr() { h5dump -a "/fingerprint/environment/$1" "$f" 2>/dev/null | grep -o '(0): ".*"'; }
  if [ "$(envattr NCCL_PLANTED_URL)" = '(0): "https://<redacted>@mirror.example.com/x"' ] &&
    [ "$(envattr OMPI_MCA_plm_rsh_agent_planted)" = '(0): "sshpass -p <redacted> ssh"' ] &&
    [ "$(envattr SLURM_JOB_COMMENT)" = '(0): "nightly password=<redacted> retry"' ]; then
    ok "${cmd%% *}: credentials inside allow-listed values redacted, the rest of each value kept"
  else
    not_ok "${cmd%% *}: credentials inside values: $(envattr NCCL_PLANTED_URL) $(envattr SLURM_JOB_COMMENT)"
  fi
  if [ "$(envattr NCCL_IB_SECRET_KEY)" = '(0): "<redacted>"' ] &&
    [ "$(envattr UCX_PASSWORD)" = '(0): "<redacted>"' ] &&
    [ "$(envattr NCCL_DEBUG)" = '(0): "WARN"' ] &&
    ! h5dump -A "$f" 2>/dev/null | grep -q 'MY_API_TOKEN'; then
    ok "${cmd%% *}: allow-listed NCCL_DEBUG kept, NCCL_IB_SECRET_KEY and UCX_PASSWORD redacted, MY_API_TOKEN not captured"
  else
    not_ok "${cmd%% *}: environment capture"
    h5dump "$f" 2>/dev/null | grep -n 'NCCL_\|UCX_\|TOKEN' | head
  fi
done
finish
