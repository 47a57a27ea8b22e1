#!/usr/bin/python3
"""Test of scripts/make-llama-decoder on a tiny decoder (2 layers, hidden 64, 4 query
and 2 KV heads, FFN 128, vocabulary 256): the same seed gives the same files and
another seed other weights; the four models are valid ONNX with the exporter's inputs,
outputs and ops; the 4-bit weights have MatMulNBits' layout (also for an odd number of
blocks) and dequantize to within half a step. Then, when node and onnxruntime-node are
there ($EGRET_MODEL_CACHE/ort), `make-llama-decoder --check` runs the models on ONNX
Runtime, with both attention spellings: the decode step reproduces the prefill's last
token, each model matches a NumPy forward pass, 4-bit logits stay near float ones.
egret itself is not run here. Exit 77 (skipped) when python3-onnx or numpy is missing,
or, after the checks without it, when ONNX Runtime is."""

import collections
import importlib.machinery
import importlib.util
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import onnx
except ImportError:
    print("python3-onnx or python3-numpy missing (scripts/setup)")
    sys.exit(77)

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
script = os.path.join(root, "scripts", "make-llama-decoder")
tiny = ["--layers", "2", "--hidden", "64", "--heads", "4", "--kv-heads", "2", "--ffn", "128",
        "--vocab", "256", "--name", "tiny"]
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAILED:", what)


def load_script():
    loader = importlib.machinery.SourceFileLoader("make_llama_decoder", script)
    spec = importlib.util.spec_from_loader(loader.name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def files(d):
    return [os.path.join(d, f"tiny.{m}.onnx")
            for m in ("prefill64", "decode_kv63", "prefill64.w4", "decode_kv63.w4")]


def read(path):
    with open(path, "rb") as f:
        return f.read()


with tempfile.TemporaryDirectory() as tmp:
    def make(name, *args):
        out = os.path.join(tmp, name)
        subprocess.run([script, "--out-dir", out, *tiny, *args], check=True,
                       stdout=subprocess.DEVNULL)
        return out

    a, b, c = make("a"), make("b"), make("c", "--seed", "2")
    for fa, fb, fc in zip(files(a), files(b), files(c)):
        name = os.path.basename(fa)
        check(read(fa) == read(fb) and read(fa + ".data") == read(fb + ".data"),
              f"{name}: the same seed gives the same files")
        check(read(fa + ".data") != read(fc + ".data"), f"{name}: another seed, other weights")

    for path in files(a):
        name = os.path.basename(path)
        onnx.checker.check_model(path)
        m = onnx.load(path)
        ops = collections.Counter(n.op_type for n in m.graph.node)
        prefill, w4 = "prefill" in name, ".w4." in name
        seq, past = (64, 0) if prefill else (1, 63)
        ins = {i.name: [d.dim_value for d in i.type.tensor_type.shape.dim] for i in m.graph.input}
        outs = {o.name: [d.dim_value for d in o.type.tensor_type.shape.dim]
                for o in m.graph.output}
        want_in = {"input_ids": [1, seq], "attention_mask": [1, past + seq],
                   "position_ids": [1, seq]}
        want_out = {"logits": [1, seq, 256]}
        for i in range(2):
            for kind in ("key", "value"):
                want_in[f"past_key_values.{i}.{kind}"] = [1, 2, past, 16]
                want_out[f"present.{i}.{kind}"] = [1, 2, past + seq, 16]
        check(ins == want_in and outs == want_out, f"{name}: inputs {ins}, outputs {outs}")
        check(ops["Pow"] == 5 and ops["ReduceMean"] == 5 and ops["Sqrt"] == 5
              and ops["Sigmoid"] == 2 and ops["Softmax"] == 2 and ops["Neg"] == 4
              and ops["Cos"] == 1 and ops["Sin"] == 1 and ops["Gather"] == 1
              and ops["Expand"] == 5 and ops["Trilu"] == (1 if prefill else 0),
              f"{name}: the exporter's ops: {dict(ops)}")
        if not w4:
            check(ops["MatMul"] == 2 * 7 + 1 + 2 * 2 + 1 and "MatMulNBits" not in ops,
                  f"{name}: 15 weight MatMuls, 4 in attention, 1 in the rotary embedding")
            continue
        check(ops["MatMulNBits"] == 2 * 7 + 1 and ops["MatMul"] == 2 * 2 + 1,
              f"{name}: 15 MatMulNBits: {dict(ops)}")
        inits = {t.name: t for t in m.graph.initializer}
        for n in m.graph.node:
            if n.op_type != "MatMulNBits":
                continue
            at = {x.name: x.i for x in n.attribute}
            k, nn = at["K"], at["N"]
            kb = k // 32
            dims = [list(inits[x].dims) for x in n.input[1:]]
            types = [inits[x].data_type for x in n.input[1:]]
            check(n.domain == "com.microsoft" and at["bits"] == 4 and at["block_size"] == 32
                  and dims == [[nn, kb, 16], [nn * kb], [nn * ((kb + 1) // 2)]]
                  and types == [onnx.TensorProto.UINT8, onnx.TensorProto.FLOAT,
                                onnx.TensorProto.UINT8],
                  f"{name}: {n.name}: MatMulNBits layout ({at}, {dims}, {types})")

    # The quantization itself, on 3 blocks per column (the zero points padded per row).
    mld = load_script()
    w = np.random.default_rng(5).standard_normal((7, 96), dtype=np.float32)
    w[0, :32] = np.abs(w[0, :32])  # a block without negative values: zero point 0
    w[1, 32:64] = 0.0  # a zero block: scale 0
    packed, scales, zps = mld.quantize_q4(w)
    check(packed.shape == (7, 3, 16) and scales.shape == (21,) and zps.shape == (14,),
          f"quantize_q4 shapes {packed.shape} {scales.shape} {zps.shape}")
    deq = mld.dequantize_q4(packed, scales, zps, 96)
    step = np.repeat(scales.reshape(7, 3), 32, axis=1)
    check(bool(np.all(np.abs(deq - w) <= step * 0.5 + 1e-6)), "dequantized within half a step")
    check(zps[0] & 0xF == 0 and scales[1 * 3 + 1] == 0 and bool(np.all(deq[1, 32:64] == 0)),
          "a nonnegative block has zero point 0; a zero block has scale 0 and stays 0")
    check(bool(np.all(zps[1::2] >> 4 == 0)), "each row's zero points are padded to a byte")

    if failures:
        print(f"{len(failures)} check(s) failed")
        sys.exit(1)

    cache = os.environ.get("EGRET_MODEL_CACHE", os.path.expanduser("~/.cache/egret/models"))
    if not load_script().find_ort_module(os.path.join(cache, "ort")) or \
            subprocess.run(["sh", "-c", "command -v node"], stdout=subprocess.DEVNULL).returncode:
        print(f"llama_decoder_test: no node or onnxruntime-node at {cache}/ort: the ONNX Runtime "
              "checks are skipped")
        sys.exit(77)
    for args, what in (([], "sdpa"), (["--attention", "eager"], "eager")):
        out = a if not args else make("eager", *args)
        r = subprocess.run([script, "--out-dir", out, *tiny, *args, "--check-only"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        print(r.stdout, end="")
        check(r.returncode == 0, f"make-llama-decoder --check-only ({what} attention)")

sys.exit(1 if failures else 0)
