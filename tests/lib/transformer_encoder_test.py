#!/usr/bin/python3
"""Test of scripts/make-transformer-encoder and of what egret does with it:
the same seed gives the same file, the model is valid ONNX, and `egret
optimize --verify` turns every decomposed LayerNorm, GELU and softmax of the
exporter's spelling into the fused op and folds the attention scale into the
query projection (checked on the reference executor).
Usage: transformer_encoder_test.py EGRET. Exit 77 (skipped) when python3-onnx
is missing."""

import collections
import json
import os
import subprocess
import sys
import tempfile

try:
    import onnx
except ImportError:
    print("python3-onnx missing (scripts/setup)")
    sys.exit(77)

egret = sys.argv[1]
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
script = os.path.join(root, "scripts", "make-transformer-encoder")
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAILED:", what)


with tempfile.TemporaryDirectory() as tmp:
    def make(name, *args):
        out = os.path.join(tmp, name)
        subprocess.run([script, "--out", out, "--seq", "16", "--dim", "32", "--ffn", "64",
                        *args], check=True)
        return out

    a, b, c = make("a.onnx"), make("b.onnx"), make("c.onnx", "--seed", "2")
    check(open(a, "rb").read() == open(b, "rb").read(), "the same seed gives the same file")
    check(open(a, "rb").read() != open(c, "rb").read(), "another seed gives other weights")
    m = onnx.load(a)
    onnx.checker.check_model(m)
    ops = collections.Counter(n.op_type for n in m.graph.node)
    check(ops["Erf"] == 2 and ops["Softmax"] == 2 and ops["ReduceMean"] == 8,
          f"two layers of the exporter's spelling: {dict(ops)}")
    check(subprocess.run([script, "--dim", "30", "--heads", "4", "--out",
                          os.path.join(tmp, "bad.onnx")]).returncode == 2,
          "a dim that the heads do not divide is bad usage")

    out = os.path.join(tmp, "out.json")
    subprocess.run([egret, "optimize", a, "--verify", "-o", out], check=True)
    got = collections.Counter(n["op"] for n in json.load(open(out))["nodes"])
    check(got["LayerNorm"] == 4, f"four LayerNorms: {dict(got)}")
    check(got["Gelu"] == 2, f"two Gelus: {dict(got)}")
    check(got["Softmax"] == 2, f"two Softmaxes: {dict(got)}")
    # The attention scale folds into the query projection (fusion.rules).
    for gone in ("Erf", "ReduceMean", "Sqrt", "ElementWisePower", "ElementWiseDivide",
                 "ElementWiseMultiply"):
        check(got[gone] == 0, f"no {gone} left: {dict(got)}")

sys.exit(1 if failures else 0)
