"""A small ONNX graph builder that writes networks the way torch.onnx.export
(opset 17, eval mode) writes them, tracks every tensor's shape, and counts
parameters the way PyTorch's model.parameters() does.

Every builder of scripts/aihub/ writes through it:

    b = Builder("resnet18", seed)
    x = b.input("image", [1, 3, 224, 224])
    x = b.relu(b.conv_bn(x, 64, 7, stride=2, pad=3))
    ...
    b.output(logits)
    net = b.net()          # an egret_qdq.Net (float)
    b.params               # the PyTorch parameter count

Parameters (counted): convolution and linear weights and biases, norm scales
and shifts (BatchNorm's gamma and beta; its running mean and variance are
buffers, as in PyTorch, and are not counted), embeddings, class tokens and
position embeddings. Constants the exporter writes (shapes, eps, scalars) are
not parameters. BatchNormalization after a Conv is folded into it by
egret_qdq.prepare, as the exporter does in eval mode; any other one (after an
Add, a Concat, a ReLU) stays a BatchNormalization node.

Weights are He-normal (std sqrt(2 / fan_in)) for convolutions and
sqrt(1 / fan_in) for linear layers; each tensor's values depend only on the
seed and its name, so a file is the same on every run.
"""

import math
import zlib

import numpy as np

from onnx import TensorProto, helper

OPSET = 17


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


class BuildError(Exception):
    """A builder asked for something inconsistent (a defect in a builder)."""


class Builder:
    def __init__(self, name, seed, opset=OPSET):
        self.name = name
        self.seed = seed
        self.opset = opset
        self.nodes = []
        self.inits = {}
        self.inputs = []
        self.outputs = []
        self.shapes = {}
        self.params = 0
        self._uid = 0
        self._scope = []

    # -- names and scopes -------------------------------------------------

    def scope(self, name):
        """`with b.scope("layer1.0"):` prefixes the names made inside it."""
        builder = self

        class _Scope:
            def __enter__(self):
                builder._scope.append(str(name))

            def __exit__(self, *exc):
                builder._scope.pop()

        return _Scope()

    def fresh(self, base):
        self._uid += 1
        prefix = ".".join(self._scope)
        return f"{prefix}.{base}_{self._uid}" if prefix else f"{base}_{self._uid}"

    def rng(self, name):
        return np.random.default_rng([self.seed, zlib.crc32(name.encode())])

    # -- tensors -----------------------------------------------------------

    def input(self, name, shape, elem=TensorProto.FLOAT):
        self.inputs.append((name, elem, list(shape)))
        self.shapes[name] = list(shape)
        return name

    def output(self, t):
        self.outputs.append(t)
        return t

    def shape(self, t):
        return list(self.shapes[t])

    def param(self, base, array):
        """A learned parameter (counted) with the given values."""
        name = self.fresh(base)
        a = np.asarray(array, dtype=np.float32)
        self.inits[name] = a
        self.shapes[name] = list(a.shape)
        self.params += int(a.size)
        return name

    def weight(self, base, shape, fan_in, gain=2.0):
        std = math.sqrt(gain / max(1, fan_in))
        name = self.fresh(base)
        a = (self.rng(name).standard_normal(shape) * std).astype(np.float32)
        self.inits[name] = a
        self.shapes[name] = list(shape)
        self.params += int(a.size)
        return name

    def bias(self, base, n, std=0.02):
        name = self.fresh(base)
        a = (self.rng(name).standard_normal(n) * std).astype(np.float32)
        self.inits[name] = a
        self.shapes[name] = [n]
        self.params += int(n)
        return name

    def const(self, array, dtype=np.float32, base="const"):
        """A constant the exporter writes (not a parameter)."""
        name = self.fresh(base)
        a = np.asarray(array, dtype=dtype)
        self.inits[name] = a
        self.shapes[name] = list(a.shape)
        return name

    def ints(self, values):
        return self.const(np.asarray(values, dtype=np.int64), np.int64, "shape")

    def node(self, op, inputs, out_shapes, **attrs):
        """Adds a node; out_shapes is a list of shapes (one per output)."""
        outs = [self.fresh(op.lower()) for _ in out_shapes]
        self.nodes.append(helper.make_node(op, list(inputs), outs, name=self.fresh(op), **attrs))
        for o, s in zip(outs, out_shapes):
            self.shapes[o] = list(s)
        return outs if len(outs) != 1 else outs[0]

    # -- convolution and linear -------------------------------------------

    def conv(self, x, cout, k, stride=1, pad=None, groups=1, dilation=1, bias=True, gain=2.0):
        """nn.Conv2d; weights normal with std sqrt(gain / fan_in) (He's 2 by default)."""
        n, cin, h, w = self.shape(x)
        kh, kw = _pair(k)
        sh, sw = _pair(stride)
        dh, dw = _pair(dilation)
        if pad is None:
            pad = ((kh - 1) * dh // 2, (kw - 1) * dw // 2)
        pads = list(_pair(pad)) * 2 if not isinstance(pad, (list, tuple)) or len(pad) != 4 else list(pad)
        if len(pads) == 2:
            pads = [pads[0], pads[1], pads[0], pads[1]]
        if cin % groups or cout % groups:
            raise BuildError(f"conv {cin}->{cout} with {groups} groups")
        wt = self.weight("conv.weight", [cout, cin // groups, kh, kw], cin // groups * kh * kw, gain)
        ins = [x, wt]
        if bias:
            ins.append(self.bias("conv.bias", cout))
        oh = (h + pads[0] + pads[2] - dh * (kh - 1) - 1) // sh + 1
        ow = (w + pads[1] + pads[3] - dw * (kw - 1) - 1) // sw + 1
        return self.node("Conv", ins, [[n, cout, oh, ow]], kernel_shape=[kh, kw], strides=[sh, sw],
                         pads=pads, dilations=[dh, dw], group=groups)

    def conv_transpose(self, x, cout, k, stride=1, pad=0, output_padding=0, bias=True):
        n, cin, h, w = self.shape(x)
        kh, kw = _pair(k)
        sh, sw = _pair(stride)
        ph, pw = _pair(pad)
        oph, opw = _pair(output_padding)
        wt = self.weight("convT.weight", [cin, cout, kh, kw], cin * kh * kw)
        ins = [x, wt]
        if bias:
            ins.append(self.bias("convT.bias", cout))
        oh = (h - 1) * sh - 2 * ph + kh + oph
        ow = (w - 1) * sw - 2 * pw + kw + opw
        return self.node("ConvTranspose", ins, [[n, cout, oh, ow]], kernel_shape=[kh, kw],
                         strides=[sh, sw], pads=[ph, pw, ph, pw], output_padding=[oph, opw])

    def batchnorm(self, x, eps=1e-5, residual=False):
        """BatchNormalization; `residual` for the last one of a residual branch,
        which gets a small scale (0.2-0.5) as trained residual networks have,
        so that activations do not double with every block."""
        c = self.shape(x)[1]
        rng = self.rng(self.fresh("bn"))
        lo, hi = (0.2, 0.5) if residual else (0.5, 1.5)
        gamma = self.param("bn.weight", rng.uniform(lo, hi, c))
        beta = self.param("bn.bias", rng.standard_normal(c) * 0.1)
        mean = self.const(rng.standard_normal(c) * 0.1, base="bn.running_mean")
        var = self.const(rng.uniform(0.5, 2.0, c), base="bn.running_var")
        return self.node("BatchNormalization", [x, gamma, beta, mean, var], [self.shape(x)],
                         epsilon=eps)

    def conv_bn(self, x, cout, k, stride=1, pad=None, groups=1, dilation=1, act=None, eps=1e-5,
                residual=False):
        y = self.batchnorm(self.conv(x, cout, k, stride, pad, groups, dilation, bias=False), eps,
                           residual)
        return self.act(y, act)

    def linear(self, x, out, bias=True):
        """nn.Linear: Gemm on a 2-D input, MatMul (+ Add) otherwise."""
        s = self.shape(x)
        k = s[-1]
        if len(s) == 2:
            wt = self.weight("linear.weight", [out, k], k, gain=1.0)
            ins = [x, wt] + ([self.bias("linear.bias", out)] if bias else [])
            return self.node("Gemm", ins, [[s[0], out]], transB=1)
        wt = self.weight("linear.weight", [k, out], k, gain=1.0)  # stored transposed, as exported
        y = self.node("MatMul", [x, wt], [s[:-1] + [out]])
        if bias:
            y = self.node("Add", [y, self.bias("linear.bias", out)], [s[:-1] + [out]])
        return y

    def matmul(self, a, b):
        sa, sb = self.shape(a), self.shape(b)
        batch = list(np.broadcast_shapes(tuple(sa[:-2]), tuple(sb[:-2])))
        return self.node("MatMul", [a, b], [batch + [sa[-2], sb[-1]]])

    # -- elementwise ---------------------------------------------------------

    def _binary(self, op, a, b):
        sa = self.shape(a) if isinstance(a, str) else []
        if not isinstance(b, str):
            b = self.const(np.asarray(b, np.float32))
        sb = self.shape(b)
        return self.node(op, [a, b], [list(np.broadcast_shapes(tuple(sa), tuple(sb)))])

    def add(self, a, b):
        return self._binary("Add", a, b)

    def sub(self, a, b):
        return self._binary("Sub", a, b)

    def mul(self, a, b):
        return self._binary("Mul", a, b)

    def div(self, a, b):
        return self._binary("Div", a, b)

    def unary(self, op, x, **attrs):
        return self.node(op, [x], [self.shape(x)], **attrs)

    def relu(self, x):
        return self.unary("Relu", x)

    def relu6(self, x):
        return self.clip(x, 0.0, 6.0)

    def clip(self, x, lo, hi):
        return self.node("Clip", [x, self.const(lo, base="min"), self.const(hi, base="max")],
                         [self.shape(x)])

    def sigmoid(self, x):
        return self.unary("Sigmoid", x)

    def silu(self, x):
        return self.mul(x, self.sigmoid(x))

    def hardsigmoid(self, x):
        return self.unary("HardSigmoid", x, alpha=1.0 / 6, beta=0.5)

    def hardswish(self, x):
        return self.unary("HardSwish", x)

    def leaky_relu(self, x, alpha=0.01):
        return self.unary("LeakyRelu", x, alpha=alpha)

    def gelu(self, x):
        """nn.GELU() as torch exports it before opset 20: x * 0.5 * (1 + erf(x / sqrt 2))."""
        e = self.unary("Erf", self.div(x, math.sqrt(2.0)))
        return self.mul(self.mul(x, self.add(e, 1.0)), 0.5)

    def act(self, x, kind):
        if kind is None:
            return x
        return {"relu": self.relu, "relu6": self.relu6, "silu": self.silu, "swish": self.silu,
                "hardswish": self.hardswish, "hardsigmoid": self.hardsigmoid, "sigmoid": self.sigmoid,
                "gelu": self.gelu, "leaky": self.leaky_relu, "lrelu": lambda t: self.leaky_relu(t, 0.2),
                "leaky0.1": lambda t: self.leaky_relu(t, 0.1)}[kind](x)

    # -- shape and layout -----------------------------------------------------

    def reshape(self, x, shape):
        """Reshape to `shape` (one -1 allowed, no 0)."""
        total = int(np.prod(self.shape(x)))
        dims = list(shape)
        if -1 in dims:
            known = int(np.prod([d for d in dims if d != -1]))
            dims[dims.index(-1)] = total // known
        if int(np.prod(dims)) != total:
            raise BuildError(f"reshape {self.shape(x)} to {shape}")
        return self.node("Reshape", [x, self.ints(shape)], [dims])

    def transpose(self, x, perm):
        s = self.shape(x)
        return self.node("Transpose", [x], [[s[p] for p in perm]], perm=list(perm))

    def flatten(self, x, axis=1):
        s = self.shape(x)
        return self.node("Flatten", [x], [[int(np.prod(s[:axis])), int(np.prod(s[axis:]))]], axis=axis)

    def concat(self, xs, axis=1):
        s = self.shape(xs[0])
        ax = axis % len(s)
        s[ax] = sum(self.shape(t)[ax] for t in xs)
        return self.node("Concat", list(xs), [s], axis=axis)

    def split(self, x, sizes, axis=1):
        s = self.shape(x)
        ax = axis % len(s)
        outs = []
        for n in sizes:
            t = list(s)
            t[ax] = n
            outs.append(t)
        r = self.node("Split", [x, self.ints(sizes)], outs, axis=axis)
        return r if isinstance(r, list) else [r]

    def slice(self, x, axis, start, end, step=1):
        s = self.shape(x)
        ax = axis % len(s)
        n = len(range(*slice(start, end, step).indices(s[ax])))
        s[ax] = n
        return self.node("Slice", [x, self.ints([start]), self.ints([end]), self.ints([axis]),
                                   self.ints([step])], [s])

    # -- pooling, resizing, normalization -----------------------------------

    def maxpool(self, x, k, stride=None, pad=0, ceil_mode=False):
        return self._pool("MaxPool", x, k, stride, pad, ceil_mode)

    def avgpool(self, x, k, stride=None, pad=0, ceil_mode=False, count_include_pad=True):
        return self._pool("AveragePool", x, k, stride, pad, ceil_mode,
                          count_include_pad=1 if count_include_pad else 0)

    def _pool(self, op, x, k, stride, pad, ceil_mode, **extra):
        n, c, h, w = self.shape(x)
        kh, kw = _pair(k)
        sh, sw = _pair(stride if stride is not None else k)
        ph, pw = _pair(pad)

        def out(i, k_, s_, p_):
            v = (i + 2 * p_ - k_ + (s_ - 1 if ceil_mode else 0)) // s_ + 1
            if ceil_mode and (v - 1) * s_ >= i + p_:
                v -= 1
            return v

        shape = [n, c, out(h, kh, sh, ph), out(w, kw, sw, pw)]
        return self.node(op, [x], [shape], kernel_shape=[kh, kw], strides=[sh, sw],
                         pads=[ph, pw, ph, pw], ceil_mode=1 if ceil_mode else 0, **extra)

    def global_avgpool(self, x):
        n, c = self.shape(x)[:2]
        return self.node("GlobalAveragePool", [x], [[n, c, 1, 1]])

    def reduce_mean(self, x, axes, keepdims=True):
        s = self.shape(x)
        ax = [a % len(s) for a in axes]
        out = [1 if i in ax else d for i, d in enumerate(s)] if keepdims else \
            [d for i, d in enumerate(s) if i not in ax]
        return self.node("ReduceMean", [x], [out], axes=list(axes), keepdims=1 if keepdims else 0)

    def resize(self, x, scale=None, size=None, mode="nearest", align_corners=False):
        """nn.Upsample / F.interpolate: scales on H and W, or an output size."""
        n, c, h, w = self.shape(x)
        roi = self.const([], base="roi")
        if size is not None:
            oh, ow = _pair(size)
            ins = [x, roi, self.const([], base="scales"), self.ints([n, c, oh, ow])]
        else:
            sh, sw = _pair(scale)
            oh, ow = int(h * sh), int(w * sw)
            ins = [x, roi, self.const([1.0, 1.0, float(sh), float(sw)], base="scales")]
        ctm = ("align_corners" if align_corners
               else "asymmetric" if mode == "nearest" else "pytorch_half_pixel")
        attrs = {"mode": "linear" if mode in ("bilinear", "linear") else mode,
                 "coordinate_transformation_mode": ctm}
        if mode == "nearest":
            attrs["nearest_mode"] = "floor"
        return self.node("Resize", ins, [[n, c, oh, ow]], **attrs)

    def layernorm(self, x, eps=1e-5, affine=True):
        c = self.shape(x)[-1]
        rng = self.rng(self.fresh("ln"))
        gamma = self.param("ln.weight", rng.uniform(0.8, 1.2, c)) if affine else self.const(np.ones(c))
        beta = self.param("ln.bias", rng.standard_normal(c) * 0.02) if affine else self.const(np.zeros(c))
        return self.node("LayerNormalization", [x, gamma, beta], [self.shape(x)], axis=-1, epsilon=eps)

    def softmax(self, x, axis=-1):
        return self.unary("Softmax", x, axis=axis)

    # -- the network -------------------------------------------------------------

    def net(self):
        from egret_qdq import Net  # scripts/egret_qdq.py

        return Net(self.name, self.nodes, self.inits, self.inputs, self.outputs, self.opset)
