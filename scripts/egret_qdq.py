"""The QDQ quantization of egret's scripts: ONNX Runtime's static quantizer
(quantize_static(quant_format=QDQ, per_channel=True, activation_type=QUInt8,
weight_type=QInt8, calibrate_method=MinMax)) re-implemented, the graph
clean-up its quant_pre_process does, and calibration on ONNX Runtime through
node (tests/onnx/ort_run.js, npm's onnxruntime-node). Used by
scripts/make-qdq-models and scripts/make-aihub-models; docs/quantized-models.md
describes the scheme. Needs python3-onnx and python3-numpy (scripts/setup).
"""
import json
import os
import shutil
import subprocess
import zlib

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

SCRIPT_DIR = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(SCRIPT_DIR)
ORT_RUN = os.path.join(REPO, "tests", "onnx", "ort_run.js")
OPSET = 13  # per-axis DequantizeLinear needs 13
IR_VERSION = 7  # the IR version of opset 13


def ir_version(opset):
    """The IR version the ONNX release that introduced `opset` writes."""
    return IR_VERSION if opset <= 14 else 8 if opset <= 18 else 9 if opset <= 20 else 10


class Fail(Exception):
    """An error reported as one line, exit code 1."""


# --------------------------------------------------------------------------
# Networks being prepared (float)


class Net:
    """A float network: nodes in topological order, initializers as arrays.

    inputs: [(name, elem_type, dims)]; outputs: [name].
    """

    def __init__(self, name, nodes, inits, inputs, outputs, opset):
        self.name = name
        self.nodes = list(nodes)
        self.inits = dict(inits)
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        self.opset = opset

    def consumers(self, tensor):
        return [n for n in self.nodes if tensor in n.input]

    def producer(self, tensor):
        for n in self.nodes:
            if tensor in n.output:
                return n
        return None

    def model(self, types=None, extra_outputs=(), opset=None, shapes_only=()):
        """The ModelProto; graph outputs typed from `types` when given. The
        initializers named in `shapes_only` become typed graph inputs."""

        def vi(name):
            if types is not None and name in types:
                elem, dims = types[name]
                return helper.make_tensor_value_info(name, elem, dims)
            v = onnx.ValueInfoProto()
            v.name = name
            return v

        graph = helper.make_graph(
            self.nodes,
            self.name,
            [helper.make_tensor_value_info(n, e, d) for n, e, d in self.inputs]
            + [helper.make_tensor_value_info(n, onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[self.inits[n].dtype],
                                             self.inits[n].shape) for n in shapes_only],
            [vi(o) for o in list(self.outputs) + list(extra_outputs)],
            [numpy_helper.from_array(a, n) for n, a in self.inits.items() if n not in shapes_only],
        )
        m = helper.make_model(
            graph,
            opset_imports=[helper.make_opsetid("", opset or self.opset)],
            producer_name="egret-make-qdq-models",
        )
        m.ir_version = ir_version(opset or self.opset)
        return m

    def types(self):
        """name -> (elem_type, dims or None) of every tensor, by ONNX shape inference."""
        # Large float weights enter as typed inputs: shape inference needs
        # their shapes only, and serializing them would dominate the time.
        big = [n for n, a in self.inits.items() if a.dtype == np.float32 and a.size > 4096]
        m = onnx.shape_inference.infer_shapes(self.model(shapes_only=big), strict_mode=True)
        out = {}
        for v in list(m.graph.value_info) + list(m.graph.output) + list(m.graph.input):
            t = v.type.tensor_type
            if not t.elem_type:
                continue
            dims = None
            if t.HasField("shape"):
                dims = [d.dim_value if d.HasField("dim_value") else None for d in t.shape.dim]
            out[v.name] = (t.elem_type, dims)
        for n, a in self.inits.items():
            out[n] = (onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[a.dtype], list(a.shape))
        return out


def attr(node, name, default=None):
    for a in node.attribute:
        if a.name == name:
            return helper.get_attribute_value(a)
    return default


def set_attr(node, name, value):
    for i, a in enumerate(node.attribute):
        if a.name == name:
            del node.attribute[i]
            break
    node.attribute.append(helper.make_attribute(name, value))


def rng_for(seed, *keys):
    """A generator seeded by `seed` and keys (strings hash with crc32)."""
    parts = [seed]
    for k in keys:
        parts.append(zlib.crc32(k.encode()) if isinstance(k, str) else int(k))
    return np.random.default_rng(parts)


def he_normal(rng, shape, fan_in):
    return (rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32)


def bn_params(rng, channels, residual):
    """Sane BatchNormalization (scale, bias, mean, var); var > 0. A branch that
    ends in a residual Add gets a small scale, as trained ResNets have."""
    lo, hi = (0.2, 0.5) if residual else (0.5, 1.5)
    scale = rng.uniform(lo, hi, channels).astype(np.float32)
    bias = (rng.standard_normal(channels) * 0.1).astype(np.float32)
    mean = (rng.standard_normal(channels) * 0.1).astype(np.float32)
    var = rng.uniform(0.5, 2.0, channels).astype(np.float32)
    return scale, bias, mean, var


# --------------------------------------------------------------------------
# Pre-processing: what exporters and ONNX Runtime's quant_pre_process do
# before quantizing (constant folding, Conv+BatchNorm and MatMul+Add fusion),
# and the move to opset 13.


def fold_constants(net):
    """Evaluates the integer shape arithmetic (Shape of a static shape, Cast,
    Slice, Concat, Unsqueeze, Squeeze, Gather of constants) into initializers."""
    types = net.types()
    kept = []
    for n in net.nodes:
        ins = [x for x in n.input if x]
        known = all(x in net.inits for x in ins)
        value = None
        if n.op_type == "Shape" and types.get(n.input[0], (0, None))[1] is not None:
            dims = types[n.input[0]][1]
            if all(d is not None for d in dims):
                value = np.array(dims, np.int64)
        elif known and n.op_type == "Cast":
            value = net.inits[n.input[0]].astype(onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[attr(n, "to")])
        elif known and n.op_type == "Concat":
            value = np.concatenate([net.inits[x] for x in n.input], axis=attr(n, "axis"))
        elif known and n.op_type == "Gather":
            value = np.take(net.inits[n.input[0]], net.inits[n.input[1]], axis=attr(n, "axis", 0))
        elif known and n.op_type in ("Unsqueeze", "Squeeze") and attr(n, "axes") is not None:
            a = net.inits[n.input[0]]
            axes = attr(n, "axes")
            value = np.expand_dims(a, axes) if n.op_type == "Unsqueeze" else np.squeeze(a, tuple(axes))
        elif known and n.op_type == "Slice":
            a = net.inits[n.input[0]]
            if len(n.input) > 1:
                starts, ends = net.inits[n.input[1]], net.inits[n.input[2]]
                axes = net.inits[n.input[3]] if len(n.input) > 3 and n.input[3] else range(len(starts))
                steps = net.inits[n.input[4]] if len(n.input) > 4 and n.input[4] else [1] * len(starts)
            else:
                starts, ends = attr(n, "starts"), attr(n, "ends")
                axes = attr(n, "axes", list(range(len(starts))))
                steps = [1] * len(starts)
            index = [slice(None)] * a.ndim
            for s, e, ax, st in zip(starts, ends, axes, steps):
                index[int(ax)] = slice(int(s), int(e), int(st))
            value = a[tuple(index)]
        if value is None:
            kept.append(n)
        else:
            net.inits[n.output[0]] = np.ascontiguousarray(value)
    net.nodes = kept


def fold_batchnorm(net):
    """Folds each BatchNormalization into the Conv that feeds it, as
    torch.onnx.export does in eval mode; one that does not follow a Conv it
    can fold into (BN-ReLU-Conv pre-activation, BN after Add or Concat, a Conv
    output read elsewhere, a shared or non-constant weight) stays a
    BatchNormalization node."""
    kept = []
    folded = set()
    for n in net.nodes:
        if n.op_type != "BatchNormalization":
            kept.append(n)
            continue
        conv = net.producer(n.input[0])
        w_name = conv.input[1] if conv is not None and len(conv.input) > 1 else None
        if (conv is None or conv.op_type != "Conv" or len(net.consumers(n.input[0])) != 1
                or n.input[0] in net.outputs or w_name not in net.inits
                or any(x not in net.inits for x in n.input[1:5])
                or len(n.output) != 1 or w_name in folded
                or len([c for c in net.nodes if w_name in c.input]) != 1
                or (len(conv.input) > 2 and conv.input[2] and conv.input[2] not in net.inits)):
            kept.append(n)
            continue
        scale, bias, mean, var = (net.inits[x].astype(np.float64) for x in n.input[1:5])
        s = scale / np.sqrt(var + attr(n, "epsilon", 1e-5))
        w = net.inits[w_name].astype(np.float64)
        net.inits[w_name] = (w * s.reshape(-1, *([1] * (w.ndim - 1)))).astype(np.float32)
        if len(conv.input) > 2 and conv.input[2]:
            b_name = conv.input[2]
            b = net.inits[b_name].astype(np.float64)
        else:
            b_name = (w_name[:-len(".weight")] + ".bias") if w_name.endswith(".weight") else w_name + "_bias"
            b = np.zeros(w.shape[0])
            while len(conv.input) < 3:
                conv.input.append("")
            conv.input[2] = b_name
        net.inits[b_name] = ((b - mean) * s + bias).astype(np.float32)
        folded.add(w_name)
        conv.output[0] = n.output[0]
    net.nodes = kept


def sum_to_add(net):
    """Two-input Sum (the caffe2 ResNet's residual) becomes Add, as PyTorch
    exports it and as ONNX Runtime's quantizer knows it."""
    for n in net.nodes:
        if n.op_type == "Sum":
            if len(n.input) != 2:
                raise Fail(f"Sum {n.name} has {len(n.input)} inputs; only two are handled")
            n.op_type = "Add"


def matmul_add_to_gemm(net):
    """MatMul(A, B) + C with constant B and C and 2-D A becomes Gemm, as ONNX
    Runtime's MatMulAddFusion (in quant_pre_process) does."""
    types = net.types()
    drop = set()
    for n in net.nodes:
        if n.op_type != "MatMul" or n.input[1] not in net.inits:
            continue
        a_dims = types.get(n.input[0], (0, None))[1]
        users = net.consumers(n.output[0])
        if a_dims is None or len(a_dims) != 2 or net.inits[n.input[1]].ndim != 2 or len(users) != 1:
            continue
        add = users[0]
        if add.op_type != "Add" or n.output[0] in net.outputs:
            continue
        c = add.input[1] if add.input[0] == n.output[0] else add.input[0]
        n_out = net.inits[n.input[1]].shape[1]
        if c not in net.inits or net.inits[c].shape not in ((n_out,), (1, n_out)):
            continue
        n.op_type = "Gemm"
        n.input.append(c)
        n.output[0] = add.output[0]
        drop.add(id(add))
    net.nodes = [n for n in net.nodes if id(n) not in drop]


# Ops whose opset-9 form means the same at opset 13 (Clip and Softmax are
# handled in to_opset13).
SAME_AT_OPSET13 = {
    "Add", "AveragePool", "Cast", "Concat", "Conv", "Div", "Flatten", "Gemm", "GlobalAveragePool",
    "HardSigmoid", "Identity", "MatMul", "MaxPool", "Mul", "Relu", "Reshape", "Sigmoid", "Sub",
    "Transpose", "Clip", "Softmax"}


def to_opset13(net):
    if net.opset >= OPSET:
        return
    types = net.types()
    for n in net.nodes:
        if n.op_type not in SAME_AT_OPSET13:
            raise Fail(f"no opset {net.opset} -> {OPSET} upgrade for {n.op_type} ({n.name})")
        if n.op_type == "Clip" and net.opset < 11:
            lo, hi = attr(n, "min", -3.4028234663852886e38), attr(n, "max", 3.4028234663852886e38)
            del n.attribute[:]
            net.inits[n.name + "_min"] = np.array(lo, np.float32)
            net.inits[n.name + "_max"] = np.array(hi, np.float32)
            n.input.extend([n.name + "_min", n.name + "_max"])
        if n.op_type == "Softmax":
            dims = types.get(n.input[0], (0, None))[1]
            axis = attr(n, "axis", 1)
            if dims is None or axis % len(dims) != len(dims) - 1:
                raise Fail(f"Softmax {n.name}: opset {net.opset} semantics differ at opset {OPSET}")
    net.opset = OPSET


def name_nodes(net):
    seen = set()
    for i, n in enumerate(net.nodes):
        if not n.name or n.name in seen:
            n.name = f"{n.op_type}_{i}"
        seen.add(n.name)


def prune(net):
    """Drops nodes whose outputs nobody reads and initializers nobody reads."""
    while True:
        used = set(net.outputs)
        for n in net.nodes:
            used.update(n.input)
        kept = [n for n in net.nodes if any(o in used for o in n.output)]
        if len(kept) == len(net.nodes):
            break
        net.nodes = kept
    net.inits = {k: v for k, v in net.inits.items() if k in used}


def prepare(net):
    fold_constants(net)
    prune(net)
    fold_batchnorm(net)
    sum_to_add(net)
    matmul_add_to_gemm(net)
    to_opset13(net)
    name_nodes(net)
    prune(net)
    m = net.model(net.types())
    onnx.checker.check_model(m, full_check=True)
    return net


# --------------------------------------------------------------------------
# ONNX Runtime through node


class Ort:
    def __init__(self, module, workdir):
        self.module = module
        self.workdir = workdir
        self.runs = 0

    def run(self, model_path, feeds):
        """Runs the model on one thread; returns {output name: array}."""
        self.runs += 1
        d = os.path.join(self.workdir, f"run{self.runs}")
        os.makedirs(os.path.join(d, "in"))
        cmd = ["node", ORT_RUN, self.module, model_path, os.path.join(d, "out"), "1", "all"]
        for k, (name, a) in enumerate(feeds.items()):
            f = os.path.join(d, "in", f"{k}.npy")
            np.save(f, a)
            cmd.append(f"{name}={f}")
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            msg = (p.stderr.strip().splitlines() or ["(no message)"])[-1]
            raise Fail(f"ONNX Runtime failed on {os.path.basename(model_path)}: {msg}")
        with open(os.path.join(d, "out", "outputs.txt")) as f:
            names = [line for line in f.read().split("\n") if line]
        outs = {n: np.load(os.path.join(d, "out", f"{k}.npy")) for k, n in enumerate(names)}
        shutil.rmtree(d)
        return outs


def calibrate(net, ort, samples):
    """MinMax calibration as ONNX Runtime's MinMaxCalibrater does it: every
    float tensor (graph inputs and node outputs) gets ReduceMin/ReduceMax
    outputs; the range of a tensor is the min of mins and max of maxes over
    the samples. Returns {tensor: (min, max)} as float32."""
    types = net.types()
    tensors = [n for n, e, _ in net.inputs if e == TensorProto.FLOAT]
    for n in net.nodes:
        tensors += [o for o in n.output if o and types.get(o, (0,))[0] == TensorProto.FLOAT]
    aug = Net(net.name, net.nodes, net.inits, net.inputs, [], net.opset)
    outs = []
    for k, t in enumerate(tensors):
        for op in ("ReduceMin", "ReduceMax"):
            o = f"__calibration_{op}_{k}"
            aug.nodes.append(helper.make_node(op, [t], [o], name=o, keepdims=0))
            outs.append(o)
    aug.outputs = outs
    path = os.path.join(ort.workdir, "calibration.onnx")
    m = aug.model({o: (TensorProto.FLOAT, []) for o in outs})
    onnx.save(m, path)
    lo, hi = {}, {}
    for feeds in samples:
        r = ort.run(path, feeds)
        for k, t in enumerate(tensors):
            a = np.float32(r[f"__calibration_ReduceMin_{k}"])
            b = np.float32(r[f"__calibration_ReduceMax_{k}"])
            lo[t] = min(lo.get(t, a), a)
            hi[t] = max(hi.get(t, b), b)
    os.remove(path)
    return {t: (np.float32(lo[t]), np.float32(hi[t])) for t in tensors}


# --------------------------------------------------------------------------
# ONNX Runtime's QDQ quantizer (onnxruntime/python/tools/quantization:
# qdq_quantizer.py, base_quantizer.py, quant_utils.py, registry.py and the op
# quantizers of operators/: conv.py QDQConv (Conv, ConvTranspose), gemm.py
# QDQGemm, matmul.py QDQMatMul, activation.py QDQRemovableActivation,
# direct_q8.py QDQDirect8BitOp, maxpool.py QDQMaxPool, resize.py QDQResize,
# pad.py QDQPad, split.py QDQSplit, gather.py QDQGather, where.py QDQWhere,
# norm.py QDQNormalization, qdq_base_operator.py QDQOperatorBase), with the
# default options (no force_quantize_no_input_check, no dedicated QDQ pairs).

# quantize_static's default op_types_to_quantize: the keys of QLinearOpsRegistry
# and QDQRegistry.
OPS_TO_QUANTIZE = frozenset([
    "ArgMax", "Conv", "Gemm", "MatMul", "Add", "Mul", "Relu", "Clip", "LeakyRelu", "Sigmoid",
    "MaxPool", "GlobalAveragePool", "Split", "Pad", "Reshape", "Squeeze", "Unsqueeze", "Resize",
    "AveragePool", "Concat", "Softmax", "Where", "Gather", "Transpose", "EmbedLayerNormalization",
    "ConvTranspose", "Slice", "GatherElements", "InstanceNormalization", "LayerNormalization",
    "BatchNormalization", "TopK", "CumSum"])
# QDQDirect8BitOp (and QDQMaxPool from opset 12, QDQResize from opset 11):
# the output shares the input's scale and zero point when the input is quantized.
DIRECT_8BIT = frozenset(["Reshape", "Transpose", "Squeeze", "Unsqueeze", "AveragePool", "Slice",
                         "MaxPool", "Resize", "TopK"])
# QDQRemovableActivation.
REMOVABLE = frozenset(["Relu", "Clip"])
# QDQNormalization.
NORMALIZATION = frozenset(["InstanceNormalization", "LayerNormalization", "BatchNormalization"])
# Ops with a rule of their own that is not re-implemented here.
NOT_EMULATED = frozenset(["EmbedLayerNormalization"])


def qrange(qtype, symmetric):
    if qtype == TensorProto.UINT8:
        return np.array(0, np.uint8), np.array(255, np.uint8)
    if qtype == TensorProto.INT8:
        if symmetric:
            return np.array(-127, np.int8), np.array(127, np.int8)
        return np.array(-128, np.int8), np.array(127, np.int8)
    raise Fail(f"unexpected quantization type {qtype}")


def compute_scale_zp(rmin, rmax, qmin, qmax, symmetric):
    """quant_utils.compute_scale_zp: the range is widened to hold 0; scale in
    float64 then float32; zero point round-half-to-even."""
    rmin = np.minimum(rmin, np.array(0, dtype=rmin.dtype))
    rmax = np.maximum(rmax, np.array(0, dtype=rmax.dtype))
    if symmetric:
        absmax = np.maximum(np.abs(rmin), np.abs(rmax))
        rmin, rmax = -absmax, +absmax
    dr = np.array(rmax - rmin, dtype=np.float64)
    dq = np.array(qmax, dtype=np.float64) - np.array(qmin, dtype=np.float64)
    scale = np.array(dr / dq)
    if scale < np.finfo(rmax.dtype).tiny:
        return np.array(0, dtype=qmin.dtype), np.array(1.0, dtype=rmax.dtype)
    if symmetric:
        zp = np.array(np.round((qmin + qmax) / np.array(2.0, dtype=rmax.dtype)), dtype=qmin.dtype)
    else:
        zp = np.array(np.round(qmin - rmin / scale), dtype=qmin.dtype)
    return zp, scale.astype(rmax.dtype)


def quantize_nparray(qtype, arr, scale, zp):
    qmin, qmax = qrange(qtype, symmetric=True)
    q = np.asarray((arr.astype(np.float32) / scale).round() + zp)
    np.clip(q, qmin, qmax, out=q)
    return q.astype(qmin.dtype)


def quantize_data(data, qtype, symmetric):
    qmin, qmax = qrange(qtype, symmetric)
    zp, scale = compute_scale_zp(data.min(), data.max(), qmin, qmax, symmetric)
    return zp, scale, quantize_nparray(qtype, data, scale, zp)


class QdqQuantizer:
    """Turns a prepared float Net and its calibration ranges into the QDQ
    model quantize_static writes (activations uint8 asymmetric per tensor,
    weights int8 symmetric per channel, Conv/Gemm biases int32)."""

    def __init__(self, net, ranges):
        self.net = net
        self.types = net.types()
        self.nodes = [self._copy(n) for n in net.nodes]
        self.inits = dict(net.inits)
        self.graph_inputs = {n for n, _, _ in net.inputs}
        self.graph_outputs = set(net.outputs)
        self.ranges = dict(ranges)
        self.to_quantize = {}  # tensor -> {"weight": bool, "axis": int|None, "provider": str|None}
        self.biases = {}  # bias -> (input, weight, beta)
        self.removed = set()  # ids of removed nodes
        self.added = []  # new nodes
        self.qparams = {}  # quantized tensor -> (scale name, zp name, scale, zp)

    @staticmethod
    def _copy(n):
        c = onnx.NodeProto()
        c.CopyFrom(n)
        return c

    # -- graph helpers (over every node, removed ones included, as ONNXModel does)

    def _consumers(self, t):
        return [n for n in self.nodes + self.added if t in n.input]

    def _rename_input(self, old, new):
        for n in self.nodes + self.added:
            for i, x in enumerate(n.input):
                if x == old:
                    n.input[i] = new

    def _rename_output(self, old, new):
        for n in self.nodes + self.added:
            for i, x in enumerate(n.output):
                if x == old:
                    n.output[i] = new

    def _is_float(self, t):
        if not t:
            return False
        if t in self.inits:
            return self.inits[t].dtype == np.float32
        return self.types.get(t, (0,))[0] == TensorProto.FLOAT

    def _is_quantized(self, t):
        return t in self.to_quantize or t in self.biases

    # -- marking (the op quantizers)

    def _act(self, t):
        if self._is_float(t) and t not in self.to_quantize:
            self.to_quantize[t] = {"weight": False, "axis": None, "provider": None}

    def _weight(self, t, axis):
        if t not in self.inits:
            raise Fail(f"weight {t} is not an initializer")
        if self._is_float(t) and t not in self.to_quantize:
            self.to_quantize[t] = {"weight": True, "axis": axis, "provider": None}

    def _shared(self, t, provider):
        if self._is_float(t):
            self.to_quantize[t] = {"weight": False, "axis": None, "provider": provider}

    def _bias(self, bias, inp, weight, beta):
        if bias in self.inits and self.inits[bias].dtype == np.float32 and bias not in self.biases:
            self.biases[bias] = (inp, weight, beta)

    def _adjust_ranges(self):
        """BaseQuantizer.adjust_tensor_ranges: a Relu/Clip input read only by it
        takes the Relu/Clip output's range; a Softmax output is [0, 1]."""
        for n in self.nodes:
            if n.op_type in REMOVABLE:
                if (len(self._consumers(n.input[0])) == 1 and n.input[0] in self.ranges
                        and n.output[0] in self.ranges):
                    self.ranges[n.input[0]] = self.ranges[n.output[0]]
            elif n.op_type == "Softmax":
                self.ranges[n.output[0]] = (np.float32(0.0), np.float32(1.0))

    def _mark(self):
        for n in self.nodes:
            op = n.op_type
            if op not in OPS_TO_QUANTIZE:
                continue
            if op in NOT_EMULATED:
                raise Fail(f"{op} ({n.name}): ONNX Runtime's quantizer rule for it is not re-implemented")
            if op in ("Conv", "ConvTranspose"):  # QDQConv
                self._act(n.input[0])
                self._act(n.output[0])
                self._weight(n.input[1], 0 if op == "Conv" else 1)
                if len(n.input) > 2 and n.input[2]:
                    self._bias(n.input[2], n.input[0], n.input[1], 1.0)
            elif op == "Gemm":  # QDQGemm
                self._act(n.input[0])
                self._act(n.output[0])
                self._weight(n.input[1], 0 if attr(n, "transB", 0) else 1)
                if len(n.input) > 2 and n.input[2] in self.inits:
                    self._bias(n.input[2], n.input[0], n.input[1], float(attr(n, "beta", 1.0)))
                    if attr(n, "beta") is not None:
                        set_attr(n, "beta", 1.0)
            elif op == "MatMul":  # QDQMatMul
                for t in list(n.input) + list(n.output):
                    if t in self.inits:
                        self._weight(t, self.inits[t].ndim - 1)
                    else:
                        self._act(t)
            elif op in REMOVABLE:  # QDQRemovableActivation
                up, out = n.input[0], n.output[0]
                if not self._is_quantized(up):
                    continue
                if (out in self.ranges and len(self._consumers(up)) == 1
                        and up not in self.graph_outputs and up not in self.graph_inputs):
                    self._rename_output(up, out)
                    self.to_quantize.pop(up, None)
                    self.removed.add(id(n))
                else:
                    self._act(up)
                self._act(out)
            elif op in DIRECT_8BIT:  # QDQDirect8BitOp, QDQMaxPool, QDQResize
                if self._is_quantized(n.input[0]):
                    self._shared(n.output[0], n.input[0])
            elif op == "Pad":  # QDQPad
                for t in n.input:
                    self._act(t)
                if self._pad_keeps_range(n):
                    self._shared(n.output[0], n.input[0])
                else:
                    self._act(n.output[0])
            elif op == "Split":  # QDQSplit
                self._act(n.input[0])
                for t in n.output:
                    self._shared(t, n.input[0])
            elif op in ("Gather", "GatherElements"):  # QDQGather
                data = n.input[0]
                if data in self.inits and self._is_float(data):
                    self._act(data)
                    self._shared(n.output[0], data)
                elif self._is_quantized(data):
                    self._shared(n.output[0], data)
            elif op == "Where":  # QDQWhere (without force_quantize_no_input_check)
                if self._is_quantized(n.input[1]) and self._is_quantized(n.input[2]):
                    for t in n.output:
                        self._act(t)
            elif op in NORMALIZATION:  # QDQNormalization
                self._act(n.input[0])
                scale = n.input[1]
                if scale in self.inits:
                    # Per channel on axis 1 (its default axis) only when the
                    # scale has that axis; a 1-D scale is quantized per tensor.
                    self._weight(scale, 1 if self.inits[scale].ndim > 1 else None)
                else:
                    self._act(scale)
                if len(n.input) > 2 and n.input[2]:
                    self._bias(n.input[2], n.input[0], scale, 1.0)
                for t in n.output:
                    self._act(t)
            else:  # QDQOperatorBase: every input and output
                for t in list(n.input) + list(n.output):
                    self._act(t)

    def _pad_keeps_range(self, n):
        """QDQPad._should_quantize_output_same_as_input: reflect, edge and wrap
        pad with values of the input; constant mode with a float zero too."""
        mode = attr(n, "mode", b"constant")
        mode = mode.decode() if isinstance(mode, bytes) else mode
        if mode in ("reflect", "edge", "wrap"):
            return True
        if mode != "constant":
            return False
        if self.net.opset < 11:
            value = np.array(attr(n, "value", 0.0), np.float32)
        elif len(n.input) > 2 and n.input[2]:
            value = self.inits.get(n.input[2])
            if value is None:
                return False
        else:
            value = np.array(0.0, np.float32)
        return value.dtype in (np.float32, np.float16) and float(value.item()) == 0.0

    # -- parameters

    def _act_params(self, t):
        if t not in self.ranges:
            raise Fail(f"no calibration range for {t}")
        rmin, rmax = self.ranges[t]
        qmin, qmax = qrange(TensorProto.UINT8, symmetric=False)
        return compute_scale_zp(np.float32(rmin), np.float32(rmax), qmin, qmax, symmetric=False)

    def _provider_scale(self, t):
        while self.to_quantize.get(t, {}).get("provider"):
            t = self.to_quantize[t]["provider"]
        if t in self.inits:  # a constant quantized as an activation (Gather's table)
            if t in self.qparams:
                return self.qparams[t][2]
            weight = self.to_quantize.get(t, {}).get("weight")
            qtype = TensorProto.INT8 if weight else TensorProto.UINT8
            return quantize_data(self.inits[t].flatten(), qtype, symmetric=True)[1]
        return self._act_params(t)[1]

    def _weight_per_channel(self, w, axis):
        """quantize_weight_per_channel: int8, symmetric [-127, 127], zero point 0."""
        data = self.inits[w]
        zps, scales, qs = [], [], []
        shape = list(data.shape)
        shape[axis] = 1
        for c in range(data.shape[axis]):
            zp, scale, q = quantize_data(data.take(c, axis).flatten(), TensorProto.INT8, True)
            zps.append(zp)
            scales.append(scale)
            qs.append(q.reshape(shape))
        return (np.array(zps, np.int8), np.array(scales, np.float32),
                np.concatenate(qs, axis))

    def _adjust_for_int32_bias(self, w, axis, zps, scales, q):
        """_adjust_weight_scale_for_int32_bias: a weight scale so small that
        bias / (input scale * weight scale) would leave int32 is raised."""
        for bias, (inp, weight, beta) in self.biases.items():
            if weight != w:
                continue
            input_scale = np.array(self._provider_scale(inp).item(), dtype=np.float64)
            b = self.inits[bias]
            qr = np.float64(np.iinfo(np.int32).max) - np.float64(np.iinfo(np.int32).min + 1)
            for c in range(scales.shape[0]):
                bc = b[c] if b.size > 1 else b.reshape(-1)[0]
                absmax = max(abs(min(float(bc), 0.0)), abs(max(float(bc), 0.0)))
                smallest = 1.0001 * (2.0 * absmax) / qr
                if input_scale * np.float64(scales[c]) < smallest:
                    scales[c] = np.float32(smallest / input_scale)
                    idx = [slice(None)] * q.ndim
                    idx[axis] = slice(c, c + 1)
                    q[tuple(idx)] = quantize_nparray(TensorProto.INT8, self.inits[w][tuple(idx)],
                                                     scales[c], zps[c])
        return zps, scales, q

    def _adjust_per_tensor_for_int32_bias(self, w, scale):
        """_adjust_weight_scale_for_int32_bias for a weight quantized per
        tensor: the bias's range as a whole decides."""
        for bias, (inp, weight, beta) in self.biases.items():
            if weight != w:
                continue
            input_scale = np.array(self._provider_scale(inp).item(), dtype=np.float64)
            b = self.inits[bias].astype(np.float64)
            qr = np.float64(np.iinfo(np.int32).max) - np.float64(np.iinfo(np.int32).min + 1)
            absmax = max(abs(min(float(b.min()), 0.0)), abs(max(float(b.max()), 0.0)))
            smallest = 1.0001 * (2.0 * absmax) / qr
            candidate = input_scale * np.float64(scale)
            if 0.0 < candidate < smallest:
                scale = np.array(smallest / input_scale, dtype=np.float32)
        return scale

    # -- rewriting

    def _add_init(self, name, a):
        if name in self.inits:
            raise Fail(f"initializer name {name} is taken")
        self.inits[name] = a

    def _qdq_pair(self, t, scale_name, zp_name):
        """_add_qdq_pair_for_activation (shared Q/DQ, no dedicated pairs)."""
        q_in, dq_out = t, t + "_DequantizeLinear_Output"
        if t in self.graph_outputs:
            q_in, dq_out = t + "_QuantizeLinear_Input", t
            self._rename_output(t, q_in)
        else:
            self._rename_input(t, dq_out)
        q_out = t + "_QuantizeLinear_Output"
        self.added.append(helper.make_node("QuantizeLinear", [q_in, scale_name, zp_name], [q_out],
                                           t + "_QuantizeLinear"))
        self.added.append(helper.make_node("DequantizeLinear", [q_out, scale_name, zp_name], [dq_out],
                                           t + "_DequantizeLinear"))

    def _quantize_initializer(self, t, info):
        if info["axis"] is not None:
            zp, scale, q = self._weight_per_channel(t, info["axis"])
            zp, scale, q = self._adjust_for_int32_bias(t, info["axis"], zp, scale, q)
        else:
            qtype = TensorProto.INT8 if info["weight"] else TensorProto.UINT8
            zp, scale, q = quantize_data(self.inits[t].flatten(), qtype, symmetric=True)
            q = q.reshape(self.inits[t].shape)
            if info["weight"]:
                scale = self._adjust_per_tensor_for_int32_bias(t, scale)
                q = quantize_nparray(qtype, self.inits[t], scale, zp)
        self._add_init(t + "_quantized", q)
        self._add_init(t + "_scale", scale)
        self._add_init(t + "_zero_point", zp)
        out = t + "_DequantizeLinear_Output"
        self._rename_input(t, out)
        kw = {} if info["axis"] is None else {"axis": info["axis"]}
        self.added.append(helper.make_node(
            "DequantizeLinear", [t + "_quantized", t + "_scale", t + "_zero_point"], [out],
            t + "_DequantizeLinear", **kw))
        self.qparams[t] = (t + "_scale", t + "_zero_point", scale, zp)

    def _quantize_bias(self, bias, inp, weight, beta):
        """quantize_bias_static: int32, scale input_scale * weight_scale * beta,
        zero point 0, per channel (axis 0) when the weight is."""
        input_scale = self._provider_scale(inp)
        weight_scale = self.qparams[weight][2]
        b = self.inits[bias]
        bias_scale = input_scale * weight_scale * beta
        q = (np.asarray(b) / bias_scale).round()
        q = np.clip(q, np.iinfo(np.int32).min, np.iinfo(np.int32).max).astype(np.int32)
        q = q.reshape(b.shape)
        scale = np.asarray(bias_scale, dtype=b.dtype).reshape(-1)
        per_channel = scale.size > 1
        qn = bias + "_quantized"
        self._add_init(qn, q)
        self._add_init(qn + "_scale", scale if per_channel else scale.reshape(()))
        self._add_init(qn + "_zero_point",
                       np.zeros(scale.shape, np.int32) if per_channel else np.array(0, np.int32))
        kw = {"axis": 0} if per_channel else {}
        self.added.append(helper.make_node(
            "DequantizeLinear", [qn, qn + "_scale", qn + "_zero_point"], [bias],
            bias + "_DequantizeLinear", **kw))
        del self.inits[bias]

    def quantize(self):
        self._adjust_ranges()
        self._mark()
        for t, info in list(self.to_quantize.items()):  # _quantize_normal_tensors
            if info["provider"]:
                continue
            if t in self.inits:
                self._quantize_initializer(t, info)
            else:
                zp, scale = self._act_params(t)
                self._add_init(t + "_scale", scale)
                self._add_init(t + "_zero_point", zp)
                self._qdq_pair(t, t + "_scale", t + "_zero_point")
                self.qparams[t] = (t + "_scale", t + "_zero_point", scale, zp)
        pending = {t: i["provider"] for t, i in self.to_quantize.items() if i["provider"]}
        while pending:  # _quantize_sharing_param_tensors
            ready = [t for t, p in pending.items() if p in self.qparams]
            if not ready:
                raise Fail(f"no quantization parameters to share with {sorted(pending)[0]}")
            for t in ready:
                p = self.qparams[pending.pop(t)]
                self._qdq_pair(t, p[0], p[1])
                self.qparams[t] = p
        for bias, (inp, weight, beta) in self.biases.items():  # _quantize_bias_tensors
            self._quantize_bias(bias, inp, weight, beta)
        nodes = [n for n in self.nodes if id(n) not in self.removed] + self.added
        return self._model(topo_sort(nodes))

    def _model(self, nodes):
        used = set(self.net.outputs)
        for n in nodes:
            used.update(n.input)
        types = self.net.types()
        graph = helper.make_graph(
            nodes,
            self.net.name,
            [helper.make_tensor_value_info(n, e, d) for n, e, d in self.net.inputs],
            [helper.make_tensor_value_info(o, *types[o]) for o in self.net.outputs],
            [numpy_helper.from_array(a, n) for n, a in self.inits.items() if n in used],
        )
        graph.doc_string = (
            "Statically quantized by egret's scripts/make-qdq-models the way ONNX Runtime's "
            "quantize_static(QDQ, per_channel=True, activation_type=QUInt8, weight_type=QInt8, "
            "MinMax) does: activations uint8 asymmetric per tensor, weights int8 symmetric per "
            "channel, Conv/Gemm biases int32.")
        opset = max(self.net.opset, OPSET)
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="egret-make-qdq-models")
        m.ir_version = ir_version(opset)
        return m


def topo_sort(nodes):
    """Nodes in an order where producers come first, each node as early as its
    first reader needs it (so Q/DQ nodes sit next to their readers)."""
    produced_by = {}
    for i, n in enumerate(nodes):
        for o in n.output:
            if o:
                produced_by[o] = i
    done = [False] * len(nodes)
    order = []
    for root in range(len(nodes)):
        stack = [(root, False)]
        while stack:
            i, expanded = stack.pop()
            if done[i]:
                continue
            if expanded:
                done[i] = True
                order.append(nodes[i])
                continue
            stack.append((i, True))
            for x in reversed(nodes[i].input):
                p = produced_by.get(x)
                if p is not None and not done[p]:
                    stack.append((p, False))
    return order


def random_input(net, seed, key, lo=None, hi=None):
    """Seeded values for every graph input, drawn in input order from one
    generator: floats uniform in [lo, hi] (by default input_range's range for
    that input), integers (token ids) uniform in [0, 100), booleans at random."""
    rng = rng_for(seed, net.name, key)
    feeds = {}
    for name, elem, dims in net.inputs:
        dtype = onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[elem]
        if elem in (TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.DOUBLE):
            a, b = (lo, hi) if lo is not None else input_range_of(dims)
            feeds[name] = rng.uniform(a, b, dims).astype(dtype)
        elif elem == TensorProto.BOOL:
            feeds[name] = rng.integers(0, 2, dims).astype(np.bool_)
        elif np.issubdtype(dtype, np.integer):
            feeds[name] = rng.integers(0, 100, dims, dtype=np.int64).astype(dtype)
        else:
            raise Fail(f"input {name}: no random values for element type {elem}")
    return feeds


def save_atomically(model, path):
    tmp = path + ".part"
    onnx.save(model, tmp)
    os.replace(tmp, path)


def verify(net, qmodel, qparams, float_path, qdq_path, ort, feeds):
    """Runs the float and the QDQ networks on ONNX Runtime on the same input;
    compares each output (and the logits under a final Softmax)."""
    pairs = [(o, o, o) for o in net.outputs]
    for o in net.outputs:
        p = net.producer(o)
        if p is not None and p.op_type == "Softmax":
            logits = p.input[0]
            dq = logits + "_DequantizeLinear_Output"
            if not any(dq in n.output for n in qmodel.graph.node):
                dq = logits
            pairs.append(("logits", logits, dq))
    fm = onnx.load(float_path)
    qm = onnx.ModelProto()
    qm.CopyFrom(qmodel)
    for label, f, q in pairs[len(net.outputs):]:
        fm.graph.output.append(helper.make_tensor_value_info(f, TensorProto.FLOAT, None))
        qm.graph.output.append(helper.make_tensor_value_info(q, TensorProto.FLOAT, None))
    fpath = float_path + ".verify.onnx"
    onnx.save(fm, fpath)
    onnx.save(qm, qdq_path)
    fr = ort.run(fpath, feeds)
    qr = ort.run(qdq_path, feeds)
    os.remove(fpath)
    os.remove(qdq_path)
    parts = []
    for label, f, q in pairs:
        a, b = fr[f].astype(np.float64), qr[q].astype(np.float64)
        if a.shape != b.shape:
            raise Fail(f"{label}: float shape {a.shape}, QDQ shape {b.shape}")
        d = float(np.max(np.abs(a - b)))
        span = float(a.max() - a.min())
        step = float(qparams[f][2]) if f in qparams else float("nan")
        argmax = ""
        if a.ndim == 2:
            argmax = f", same argmax {int(np.sum(a.argmax(1) == b.argmax(1)))}/{a.shape[0]}"
        parts.append(f"{label} max|d| {d:.4g} = {100 * d / span if span else 0:.2f}% of range "
                     f"{span:.4g} = {d / step:.2f} steps{argmax}")
    return "; ".join(parts)


def find_ort_module(d):
    for c in (d, os.path.join(d, "onnxruntime-node"), os.path.join(d, "node_modules", "onnxruntime-node")):
        try:
            with open(os.path.join(c, "package.json")) as f:
                if json.load(f).get("name") == "onnxruntime-node":
                    return os.path.abspath(c)
        except (OSError, ValueError):
            pass
    return None


def input_range_of(dims):
    """[0, 1] for an image (a 4-D tensor), [-1, 1] otherwise."""
    return (0.0, 1.0) if len(dims) == 4 else (-1.0, 1.0)


def input_range(net):
    """The range calibration and test inputs are drawn from: [0, 1] for an
    image (a 4-D input), [-1, 1] otherwise (of the first input)."""
    return input_range_of(net.inputs[0][2])
