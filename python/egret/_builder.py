"""egret.GraphBuilder: a small egret graph written in code, op by op, with
egret's op names and NHWC layout (docs/ops.md; egret/api/graph_builder.h).

    b = egret.GraphBuilder("block")
    x = b.input("x", "Float32", (1, 8, 8, 16))
    b.output(b.op("Relu", [x]), "y")
    graph = b.build()        # an egret.Graph for egret.optimize and egret.run

Output types are inferred by the ops' shape functions. Errors are sticky:
the first failing call is remembered and build() raises it (an
egret.InvalidArgumentError naming the node).
"""

from egret import _arrays, _egret, _model


class GraphBuilder:
    def __init__(self, name=""):
        self._b = _egret.GraphBuilder(name)

    def input(self, name, dtype, dims):
        """A graph input of egret dtype ``dtype`` ("Float32", ...) and dims."""
        return self._b.input(name, dtype, [int(d) for d in dims])

    def constant(self, name, value):
        """A constant holding numpy array ``value`` (float32, int32, ...)."""
        dtype, dims, data = _arrays.to_typed_bytes(value)
        return self._b.constant(name, dtype, list(dims), data)

    def shape(self, dims):
        """A shape parameter (strides, pads, ...: docs/ops.md)."""
        return self._b.shape([int(d) for d in dims])

    def op(self, op, inputs, name=""):
        """A node computing ``op`` on ``inputs`` (values this builder made)."""
        return self._b.op(op, list(inputs), name)

    def output(self, value, name=""):
        """Marks ``value`` as a graph output."""
        self._b.output(value, name)

    def build(self):
        """The egret.Graph, validated; raises the first error."""
        return _model.Graph(self._b.build())
