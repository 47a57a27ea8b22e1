#!/usr/bin/env bash
# A small subset of the AI Hub Models architectures built by
# scripts/make-aihub-models, float and w8a8, each accepted by
# `egret optimize --verify` (which must print "verify: ok"); then the latency
# model end to end on them: `egret calibrate` on the rows of
# ../shared/aihub/latency.tsv these networks have (a device file whose fit
# and leave-one-out validation it prints), `egret cost --device` with it and
# `egret optimize --device` with a shipped device, each printing a latency.
# Usage: aihub_models_subset_test.sh EGRET OUT_DIR MODEL[,MODEL...]
# Exit 77 (skipped) when python3 lacks onnx or numpy; without node or
# onnxruntime-node only the float networks are built and checked. Python is
# $EGRET_PYTHON (default /usr/bin/python3, which scripts/setup provisions).
set -uo pipefail
egret="$1"
out="$2"
models="$3"
root="$(cd "$(dirname "$0")/../.." && pwd)"
py="${EGRET_PYTHON:-/usr/bin/python3}"
[ -x "$py" ] || py="$(command -v python3 || true)"
if [ -z "$py" ] || ! "$py" -c "import onnx, numpy" 2>/dev/null; then
  echo "aihub_models_subset: skipped: python3 lacks onnx or numpy (scripts/setup installs them)"
  exit 77
fi
cache="${EGRET_MODEL_CACHE:-$HOME/.cache/egret/models}"
w8a8=1
if ! command -v node >/dev/null || ! "$py" -c "
import sys; sys.path.insert(0, '$root/scripts'); import egret_qdq
sys.exit(0 if egret_qdq.find_ort_module('$cache/ort') else 1)"; then
  echo "aihub_models_subset: no node or onnxruntime-node at $cache/ort: the w8a8 part is skipped"
  w8a8=0
fi
args=("$out" --models "$models" --force --ort "$cache/ort")
[ "$w8a8" = 1 ] || args+=(--float-only)
if ! "$py" "$root/scripts/make-aihub-models" "${args[@]}"; then
  echo "aihub_models_subset: FAILED: scripts/make-aihub-models ${args[*]}"
  exit 1
fi
failed=0
checked=0
IFS=, read -ra names <<<"$models"
for name in "${names[@]}"; do
  stem="${name//\//.}"
  files=("$out/$stem.onnx")
  [ "$w8a8" = 1 ] && files+=("$out/$stem.w8a8.onnx")
  for f in "${files[@]}"; do
    log="$("$egret" optimize "$f" --verify 2>&1)"
    rc=$?
    checked=$((checked + 1))
    if [ $rc -ne 0 ] || ! grep -q "^verify: ok" <<<"$log"; then
      echo "aihub_models_subset: FAILED: egret optimize $f --verify (exit $rc):"
      tail -n 20 <<<"$log"
      failed=$((failed + 1))
    else
      echo "aihub_models_subset: $(basename "$f"): $(grep "^verify: ok" <<<"$log")"
    fi
  done
done
echo "aihub_models_subset: $((checked - failed)) of $checked files verified"
[ "$failed" = 0 ] || exit 1

# The latency model on the subset.
fail() { echo "aihub_models_subset: FAILED: $*"; exit 1; }
measured="${EGRET_SHARED_DIR:-$root/../shared}/aihub/latency.tsv"
first="$out/${names[0]//\//.}.onnx"
if [ -f "$measured" ]; then
  log="$("$egret" calibrate "$measured" --models "$out" --chipset "Snapdragon 8 Gen 3" \
        -o "$out/device.json" --table "$out/device.tsv" 2>&1)" || fail "egret calibrate: $log"
  echo "$log"
  grep -q "^calibrate: Snapdragon 8 Gen 3, qnn_dlc: [0-9]* measured networks" <<<"$log" ||
    fail "egret calibrate printed no summary"
  grep -q "^all " <<<"$log" || fail "egret calibrate printed no validation"
  [ -s "$out/device.json" ] && [ -s "$out/device.tsv" ] || fail "egret calibrate wrote no device file"
  log="$("$egret" cost "$first" --device "$out/device.json" 2>&1)" || fail "egret cost: $log"
  grep -q "^latency: [0-9.e+-]* ms" <<<"$log" || fail "egret cost printed no latency: $log"
  echo "aihub_models_subset: egret cost --device device.json: $(grep '^latency' <<<"$log")"
else
  echo "aihub_models_subset: $measured missing: egret calibrate not checked"
fi
log="$("$egret" optimize "$first" --device snapdragon-8-gen-3 2>&1)" || fail "egret optimize --device: $log"
grep -q "^latency after:  [0-9.e+-]* ms" <<<"$log" || fail "egret optimize --device printed no latency: $log"
echo "aihub_models_subset: egret optimize --device: $(grep '^latency after' <<<"$log")"
