#!/usr/bin/python3
"""A LLaMA decoder layer (RMSNorm, rotary embedding, grouped-query attention
with a causal mask, SiLU-gated MLP) written as exporters write it, in several
spellings, through `egret optimize --verify`: every RMSNorm becomes RmsNorm,
the SiLU Swish, the softmax Softmax, and the KV-head repeat a broadcast (no
Tile), with the same outputs on the reference executor.
Usage: llama_layer_test.py EGRET. Exit 77 (skipped) when python3-onnx or
numpy is missing."""

import collections
import json
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
except ImportError:
    print("python3-onnx or numpy missing (scripts/setup)")
    sys.exit(77)

egret = sys.argv[1]
B, S, D, H, KV, HD, F = 1, 8, 64, 4, 2, 16, 128
G = H // KV


def layer(rsqrt, silu, softmax):
    """The layer with RMSNorm's reciprocal root spelled `rsqrt` ("reciprocal":
    Sqrt and Reciprocal, as PyTorch exports torch.rsqrt; "divide": x / Sqrt;
    "power": Pow -0.5), SiLU spelled `silu` ("sigmoid": x * Sigmoid(x);
    "logistic": x / (1 + exp(-x))) and the softmax `softmax` ("op" or
    "decomposed": exp(s - max) / sum)."""
    rng = np.random.RandomState(0)
    nodes, inits = [], []

    def c(name, arr):
        inits.append(numpy_helper.from_array(np.asarray(arr), name))
        return name

    def n(op, ins, out, **kw):
        nodes.append(helper.make_node(op, ins, [out], **kw))
        return out

    f32 = lambda v: np.array(v, np.float32)
    i64 = lambda v: np.array(v, np.int64)

    def rms(x, p):
        sq = n("Pow", [x, c(p + "two", f32(2))], p + "sq")
        ms = n("ReduceMean", [sq], p + "ms", axes=[-1], keepdims=1)
        v = n("Add", [ms, c(p + "eps", f32(1e-6))], p + "v")
        if rsqrt == "reciprocal":
            xn = n("Mul", [x, n("Reciprocal", [n("Sqrt", [v], p + "r")], p + "ir")], p + "xn")
        elif rsqrt == "divide":
            xn = n("Div", [x, n("Sqrt", [v], p + "r")], p + "xn")
        else:
            xn = n("Mul", [x, n("Pow", [v, c(p + "mh", f32(-0.5))], p + "ir")], p + "xn")
        return n("Mul", [c(p + "w", (rng.rand(D) + 0.5).astype(np.float32)), xn], p + "out")

    def lin(x, i, o, p):
        return n("MatMul", [x, c(p + "W", (rng.randn(i, o) * 0.1).astype(np.float32))], p + "y")

    def heads(t, nh, p):
        r = n("Reshape", [t, c(p + "s", i64([B, S, nh, HD]))], p + "r")
        return n("Transpose", [r], p + "t", perm=[0, 2, 1, 3])

    def rope(t, p):
        x1 = n("Slice", [t, c(p + "s0", i64([0])), c(p + "e0", i64([HD // 2])),
                         c(p + "a0", i64([-1]))], p + "x1")
        x2 = n("Slice", [t, c(p + "s1", i64([HD // 2])), c(p + "e1", i64([HD])),
                         c(p + "a1", i64([-1]))], p + "x2")
        rh = n("Concat", [n("Neg", [x2], p + "nx2"), x1], p + "rh", axis=-1)
        return n("Add", [n("Mul", [t, "cos"], p + "a"), n("Mul", [rh, "sin"], p + "b")], p + "out")

    def repeat(t, p):  # [B, KV, S, HD] -> [B, H, S, HD], each KV head G times
        u = n("Unsqueeze", [t, c(p + "ax", i64([2]))], p + "u")
        e = n("Expand", [u, c(p + "sh", i64([B, KV, G, S, HD]))], p + "e")
        return n("Reshape", [e, c(p + "rs", i64([B, H, S, HD]))], p + "r")

    ang = np.arange(S)[:, None] / (500000.0 ** (np.arange(0, HD, 2) / HD))[None, :]
    emb = np.concatenate([ang, ang], -1)[None, None]
    c("cos", np.cos(emb).astype(np.float32))
    c("sin", np.sin(emb).astype(np.float32))

    h1 = rms("x", "in_")
    q = rope(heads(lin(h1, D, H * HD, "q_"), H, "qh_"), "rq_")
    k = rope(heads(lin(h1, D, KV * HD, "k_"), KV, "kh_"), "rk_")
    v = heads(lin(h1, D, KV * HD, "v_"), KV, "vh_")
    kt = n("Transpose", [repeat(k, "repk_")], "kt", perm=[0, 1, 3, 2])
    s = n("Div", [n("MatMul", [q, kt], "sc"), c("sqd", f32(np.sqrt(HD)))], "sc2")
    mask = np.triu(np.full((S, S), -1e9, np.float32), 1)[None, None]
    s = n("Add", [s, c("mask", mask)], "sc3")
    if softmax == "op":
        p = n("Softmax", [s], "p", axis=-1)
    else:
        e = n("Exp", [n("Sub", [s, n("ReduceMax", [s], "mx", axes=[-1], keepdims=1)], "d")], "e")
        p = n("Div", [e, n("ReduceSum", [e, c("ax", i64([-1]))], "sum", keepdims=1)], "p")
    o = n("MatMul", [p, repeat(v, "repv_")], "o")
    o = n("Reshape", [n("Transpose", [o], "ot", perm=[0, 2, 1, 3]), c("os", i64([B, S, D]))], "of")
    r1 = n("Add", ["x", lin(o, H * HD, D, "o_")], "r1")
    h2 = rms(r1, "post_")
    g = lin(h2, D, F, "g_")
    if silu == "sigmoid":
        a = n("Mul", [g, n("Sigmoid", [g], "sg")], "silu")
    else:
        den = n("Add", [c("one", f32(1)), n("Exp", [n("Neg", [g], "ng")], "eg")], "den")
        a = n("Div", [g, den], "silu")
    m = n("Mul", [a, lin(h2, D, F, "u_")], "m")
    n("Add", [r1, lin(m, F, D, "d_")], "y")
    graph = helper.make_graph(
        nodes, "llama_layer", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [B, S, D])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [B, S, D])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    return model


failures = []
with tempfile.TemporaryDirectory() as tmp:
    for rsqrt, silu, softmax in (("reciprocal", "sigmoid", "op"), ("divide", "logistic", "decomposed"),
                                 ("power", "sigmoid", "decomposed")):
        name = f"rsqrt={rsqrt} silu={silu} softmax={softmax}"
        path = os.path.join(tmp, "layer.onnx")
        onnx.save(layer(rsqrt, silu, softmax), path)
        out = os.path.join(tmp, "out.json")
        run = subprocess.run([egret, "optimize", path, "--verify", "-o", out],
                             capture_output=True, text=True)
        if run.returncode != 0:
            failures.append(name)
            print("FAILED:", name, run.stdout, run.stderr)
            continue
        got = collections.Counter(nd["op"] for nd in json.load(open(out))["nodes"])
        want = {"RmsNorm": 2, "Swish": 1, "Softmax": 1, "Tile": 0, "ReduceMean": 0, "ReduceMax": 0,
                "Sqrt": 0, "Sigmoid": 0, "Exp": 0, "ElementWisePower": 0, "ElementWiseDivide": 0}
        bad = {op: got[op] for op, k in want.items() if got[op] != k}
        print(("ok     " if not bad else "FAILED ") + name, dict(got) if bad else "")
        if bad:
            failures.append(name)

sys.exit(1 if failures else 0)
