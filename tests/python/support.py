"""What the Python tests share: the paths ctest passes in the environment
(tests/python/CMakeLists.txt), and small models made with onnx.helper."""

import os

import numpy as np

SOURCE_DIR = os.environ.get(
    "EGRET_SOURCE_DIR", os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
)
CLI = os.environ.get("EGRET_CLI", os.path.join(SOURCE_DIR, "build", "cli", "egret"))
MODEL_CACHE = os.environ.get("EGRET_MODEL_CACHE", os.path.expanduser("~/.cache/egret/models"))



def run_cli(*args):
    """Runs the built `egret` with ``args``; its stdout. In the sanitizer
    build the tests' python has the shared ASan runtime preloaded, which the
    CLI (with its own, static one) must not get."""
    import subprocess

    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    return subprocess.run([CLI, *args], check=True, capture_output=True, text=True, env=env).stdout


# A one-layer GPT-2 from ONNX Runtime's transformer tests, in the tree.
GPT2 = os.path.join(SOURCE_DIR, "tests/onnx/testdata/ort_transformers/gpt2_one_layer.onnx")
GPT2_DIMS = {"batch_size": 1, "seq_len": 8}

# Relu(Relu(x)) is Relu(x) when the Python constraint `allow` says so, and
# the implementations (costs per HVX vector) that price Relu and Add.
DOUBLE_RELU_RULES = """\
DEF_PACKAGE_OPTIMIZATION(GRAPH_CLEANUP,
  Op("Relu", LET("inner", Op("Relu", "x"))),
  EXTERNAL_CONSTRAINT(allow, "x", 3, 1.5),
  "inner")
"""
IMPLEMENTATIONS = """\
DEF_PACKAGE_OP_AND_COST_AND_FLAGS((reluImpl<Tensor>), "Relu", 2, RESOURCE_HVX)
DEF_PACKAGE_OP_AND_COST_AND_FLAGS((addImpl<Tensor>), "ElementWiseAdd", 4, RESOURCE_HVX)
"""


def double_relu_graph():
    """Relu(Relu(x)) on a Float32[1, 4, 4, 32] input, built with egret's builder."""
    import egret

    b = egret.GraphBuilder("g")
    x = b.input("x", "Float32", (1, 4, 4, 32))
    b.output(b.op("Relu", [b.op("Relu", [x])]), "y")
    return b.build()


def mlp_model(seed=0):
    """An ONNX model y = Relu(x @ W + b) @ W2, with seeded weights, and the
    weights themselves."""
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(seed)
    w = rng.standard_normal((16, 32)).astype(np.float32)
    bias = rng.standard_normal((32,)).astype(np.float32)
    w2 = rng.standard_normal((32, 8)).astype(np.float32)
    graph = helper.make_graph(
        [
            helper.make_node("MatMul", ["x", "w"], ["h"]),
            helper.make_node("Add", ["h", "b"], ["hb"]),
            helper.make_node("Relu", ["hb"], ["r"]),
            helper.make_node("MatMul", ["r", "w2"], ["y"]),
        ],
        "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 8])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(bias, "b"),
         numpy_helper.from_array(w2, "w2")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    return model, (w, bias, w2)


def adder_chain(n=24):
    """x + c0 + c1 + ... : a graph whose e-graph under egret's built-in
    associativity and commutativity grows until a limit stops it."""
    import egret

    b = egret.GraphBuilder("chain")
    v = b.input("x", "Float32", (1, 8, 8, 32))
    for i in range(n):
        v = b.op("ElementWiseAdd", [v, b.constant(f"c{i}", np.full((1, 8, 8, 32), i, np.float32))])
    b.output(v, "y")
    return b.build()
