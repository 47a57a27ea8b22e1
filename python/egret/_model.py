"""Models in and out: what ``egret.optimize`` and ``egret.run`` accept as a
model, and the graph handle they share.

A model is an ``onnx.ModelProto``, the bytes of one, a path (str or
os.PathLike) of an ONNX model or of an egret JSON graph (docs/graph-format.md),
or an ``egret.Graph`` (a result's ``.graph``, or ``GraphBuilder.build()``).
ONNX input dims the model leaves symbolic are sized as with the CLI's flags:
``dims={"batch": 1}`` (--dim), ``default_dim=1`` (--default-dim),
``input_shapes={"x": (1, 512)}`` (--input-shape), and
``input_values={"sr": [16000]}`` (--input-value) freezes an input.
"""

import os

from egret import _egret


class Graph:
    """An egret graph (egret's IR, graph/graph.h), read from a model or
    built. ``inputs`` and ``outputs``: lists of (name, dtype, dims), dtype in
    egret's spelling ("Float32"), dims a tuple."""

    def __init__(self, handle):
        self._handle = handle

    @property
    def num_nodes(self):
        return self._handle.num_nodes

    @property
    def inputs(self):
        return [(name, t[0], t[1]) for name, t in self._handle.inputs]

    @property
    def outputs(self):
        return [(name, t[0], t[1]) for name, t in self._handle.outputs]

    def to_onnx_bytes(self, *, standard_only=False):
        """The graph as a serialized ONNX model, as ``egret optimize -o
        OUT.onnx`` writes it (``standard_only``: --onnx-standard-only)."""
        return self._handle.to_onnx(standard_only)

    def to_onnx(self, *, standard_only=False):
        """The graph as an ``onnx.ModelProto`` when onnx is importable, else
        its bytes."""
        return model_from_bytes(self.to_onnx_bytes(standard_only=standard_only))

    def __repr__(self):
        return f"egret.Graph({self.num_nodes} nodes, inputs={self.inputs}, outputs={self.outputs})"


def model_from_bytes(data):
    """An onnx.ModelProto of ``data`` when onnx is importable, else ``data``."""
    try:
        import onnx
    except ImportError:
        return data
    return onnx.load_from_string(data)


def load(model, *, dims=None, default_dim=None, input_shapes=None, input_values=None):
    """The egret.Graph of ``model`` (see the module docstring)."""
    if isinstance(model, Graph):
        return model
    args = (
        {str(k): int(v) for k, v in (dims or {}).items()},
        int(default_dim or 0),
        {str(k): [int(d) for d in v] for k, v in (input_shapes or {}).items()},
        {str(k): [float(x) for x in v] for k, v in (input_values or {}).items()},
    )
    if isinstance(model, (str, os.PathLike)):
        return Graph(_egret.load_graph(os.fspath(model), *args))
    if isinstance(model, (bytes, bytearray, memoryview)):
        return Graph(_egret.parse_onnx(bytes(model), "<model>", *args))
    if hasattr(model, "SerializeToString"):
        name = getattr(getattr(model, "graph", None), "name", "") or "model"
        return Graph(_egret.parse_onnx(model.SerializeToString(), f"<{name}>", *args))
    raise TypeError(
        f"model must be an onnx.ModelProto, bytes, a path or an egret.Graph, not {type(model).__name__}"
    )
