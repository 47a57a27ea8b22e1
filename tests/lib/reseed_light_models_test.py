#!/usr/bin/python3
"""Test of scripts/reseed-light-models on light_squeezenet: every constant
weight becomes seeded random values, the result is a valid model, the same
seed gives the same bytes and another seed other values. Exit 77 (skipped)
when ../shared/models or python3-onnx is missing."""

import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import onnx
    from onnx import numpy_helper
except ImportError:
    print("python3-onnx or python3-numpy missing (scripts/setup)")
    sys.exit(77)

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
script = os.path.join(root, "scripts", "reseed-light-models")
model = os.path.join(root, "..", "shared", "models", "onnx-light", "light_squeezenet.onnx")
if not os.path.exists(model):
    print(f"{model} missing")
    sys.exit(77)


def run(out, seed):
    subprocess.run([script, "--seed", str(seed), "--out", out, model], check=True)
    return os.path.join(out, os.path.basename(model))


failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAILED:", what)


with tempfile.TemporaryDirectory() as tmp:
    a = run(os.path.join(tmp, "a"), 1)
    b = run(os.path.join(tmp, "b"), 1)
    c = run(os.path.join(tmp, "c"), 2)
    original = onnx.load(model)
    m = onnx.load(a)
    onnx.checker.check_model(m)
    check(open(a, "rb").read() == open(b, "rb").read(), "the same seed gives the same file")
    n_const = sum(n.op_type == "ConstantOfShape" for n in original.graph.node)
    check(n_const > 0, "the original has ConstantOfShape weights")
    check(not any(n.op_type == "ConstantOfShape" for n in m.graph.node),
          "no ConstantOfShape left")
    check(len(m.graph.node) == len(original.graph.node) - n_const, "only the weights replaced")
    inits = {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}
    other = {t.name: numpy_helper.to_array(t) for t in onnx.load(c).graph.initializer}
    convs = [n for n in m.graph.node if n.op_type == "Conv"]
    check(len(convs) > 0, "the model has convolutions")
    for n in convs:
        w = inits.get(n.input[1])
        check(w is not None and w.ndim == 4, f"{n.input[1]}: a 4-d initializer")
        if w is None:
            continue
        fan_in = int(np.prod(w.shape[1:]))
        check(np.unique(w).size > w.size // 2, f"{n.input[1]}: distinct values")
        check(abs(float(w.std()) - np.sqrt(2.0 / fan_in)) < 0.5 * np.sqrt(2.0 / fan_in),
              f"{n.input[1]}: He scale")
        check(not np.array_equal(w, other[n.input[1]]), f"{n.input[1]}: another seed differs")
    # IR version 3: every initializer is also a graph input.
    names = {i.name for i in m.graph.input}
    check(all(t in names for t in inits) or m.ir_version >= 4, "initializers listed as inputs")
sys.exit(1 if failures else 0)
