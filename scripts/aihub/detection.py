"""Object detectors of AI Hub Models, each ending where AI Hub's model.py ends it
(box decoding and its post-processing in the graph, NMS outside):

yolov5      ultralytics/yolov5 (commit 882c35fc, as AI Hub's yolov5 v0.23 loads it) models/yolov5m.yaml,
            models/common.py (Conv, C3, SPPF), models/yolo.py Detect with AI Hub's
            patches/5d_to_4d.diff (one 4-D decode per anchor), then AI Hub's
            _shared/yolo/utils.py detect_postprocess. YOLOv5-M (depth 0.67, width 0.75), 80
            classes, 3 anchors per level: the anchor-based v6+ model whose 21.2M parameters
            the table gives. (AI Hub's later model.py loads yolov5mu.pt, the anchor-free
            ultralytics variant with 25.1M parameters, which the table's count does not fit.)
yolov7      WongKinYiu/yolov7 (commit 84932d70) cfg/training/yolov7-tiny.yaml and
            models/common.py (Conv with LeakyReLU 0.1, MP, SP, ELAN-style blocks, SPPCSPC-tiny),
            80 classes; the head is AI Hub's yolov7/model.py _YoloV7Detector (1x1 convs, sigmoid,
            per-level xy/wh/score decode) and detect_postprocess_split_input.
yolov8_det  ultralytics/ultralytics (commit 3208eb72, with AI Hub v0.23's find/replace patches)
            cfg/models/v8/yolov8.yaml scale n, nn/modules/block.py (C2f, SPPF, DFL reg_max 16),
            nn/modules/head.py Detect (decoupled anchor-free head, dist2bbox decode), then
            AI Hub's _shared/yolo/model.py yolo_detect_postprocess.
detr_resnet50  facebookresearch/detr (models/detr.py, transformer.py, backbone.py, position_encoding.py)
            as HuggingFace transformers' DetrForObjectDetection (facebook/detr-resnet-50) writes it,
            which AI Hub's _shared/detr/model.py wraps: ResNet-50 with frozen BatchNorm (buffers,
            so not parameters), 1x1 projection to 256, sine position encoding (a constant: the
            pixel mask is all ones), 6 post-norm encoder and 6 decoder layers, 8 heads, FFN 2048,
            100 queries, 92-way class head and 3-layer box MLP; AI Hub's input normalization and
            detr_postprocess around it. 480x480 input per the table.
"""

import math

import numpy as np

from onnx import TensorProto

from aihub.builder import Builder

INT64_MAX = 9223372036854775807
COCO_CLASSES = 80


# -- ops the Builder lacks ------------------------------------------------------


def gather(b, x, axis, index):
    """x[..., index, ...] with an integer index on `axis` (torch exports Gather)."""
    s = b.shape(x)
    ax = axis % len(s)
    return b.node("Gather", [x, b.const(np.int64(index), np.int64, "index")], [s[:ax] + s[ax + 1:]], axis=ax)


def unsqueeze(b, x, axis):
    s = b.shape(x)
    ax = axis % (len(s) + 1)
    return b.node("Unsqueeze", [x, b.ints([axis])], [s[:ax] + [1] + s[ax:]])


def stack(b, xs, axis=-1):
    """torch.stack: Unsqueeze each, then Concat."""
    return b.concat([unsqueeze(b, x, axis) for x in xs], axis=axis)


def max_dim(b, x, axis=-1):
    """torch.max(x, dim) without keepdim: (ReduceMax, ArgMax)."""
    s = b.shape(x)
    ax = axis % len(s)
    out = s[:ax] + s[ax + 1:]
    values = b.node("ReduceMax", [x], [out], axes=[axis], keepdims=0)
    index = b.node("ArgMax", [x], [out], axis=axis, keepdims=0)
    return values, index


def cast(b, x, to):
    return b.node("Cast", [x], [b.shape(x)], to=to)


def power(b, x, exponent):
    return b.node("Pow", [x, b.const(np.float32(exponent), base="exponent")], [b.shape(x)])


def split_even(b, x, size, axis):
    """torch.split(x, size, dim): chunks of `size`, the last one shorter."""
    n = b.shape(x)[axis]
    sizes = [size] * (n // size) + ([n % size] if n % size else [])
    return b.split(x, sizes, axis=axis)


def conv_act(b, x, cout, k, stride=1, act="silu", pad=None):
    """YOLO Conv: Conv2d (no bias) + BatchNorm (eps 1e-3, folded) + activation."""
    return b.conv_bn(x, cout, k, stride, pad=pad, act=act, eps=1e-3)


def maxpool_same(b, x, k):
    return b.maxpool(x, k, 1, k // 2)


# -- AI Hub's post-processing (_shared/yolo/utils.py) ------------------------------


def xywh2xyxy_chunked(b, boxes, chunk=5000):
    """transform_box_layout_xywh2xyxy: boxes [1, n, 4] in chunks of 5000 predictions."""
    cx = split_even(b, gather(b, boxes, -1, 0), chunk, -1)
    cy = split_even(b, gather(b, boxes, -1, 1), chunk, -1)
    w2 = split_even(b, b.mul(gather(b, boxes, -1, 2), 0.5), chunk, -1)
    h2 = split_even(b, b.mul(gather(b, boxes, -1, 3), 0.5), chunk, -1)
    parts = []
    for i in range(len(cx)):
        parts.append(stack(b, [b.sub(cx[i], w2[i]), b.sub(cy[i], h2[i]),
                               b.add(cx[i], w2[i]), b.add(cy[i], h2[i])]))
    return b.concat(parts, axis=-2) if len(parts) > 1 else parts[0]


def most_likely_chunked(b, scores, chunk=5000):
    """get_most_likely_score: per 5000 predictions, max and int32 argmax over classes."""
    values, indices = [], []
    for part in split_even(b, scores, chunk, -2):
        v, i = max_dim(b, part, -1)
        values.append(v)
        indices.append(cast(b, i, TensorProto.INT32))
    return b.concat(values, axis=-1), b.concat(indices, axis=-1)


# -- YOLOv5-M ----------------------------------------------------------------------------


def _make_divisible(x, d=8):
    return int(math.ceil(x / d) * d)


def _bottleneck(b, x, c2, shortcut, k1):
    """ultralytics' Bottleneck: a k1 x k1 and a 3 x 3 Conv, the input added
    when shortcut and the channels agree (YOLOv5: k1 = 1, YOLOv8: k1 = 3)."""
    c1 = b.shape(x)[1]
    y = conv_act(b, conv_act(b, x, c2, k1), c2, 3)
    return b.add(x, y) if shortcut and c1 == c2 else y


def _v5_bottleneck(b, x, c2, shortcut):
    return _bottleneck(b, x, c2, shortcut, 1)


def _v5_c3(b, x, c2, n, shortcut=True):
    c_ = c2 // 2
    y = conv_act(b, x, c_, 1)
    for j in range(n):
        with b.scope(f"m.{j}"):
            y = _v5_bottleneck(b, y, c_, shortcut)
    return conv_act(b, b.concat([y, conv_act(b, x, c_, 1)]), c2, 1)


def _sppf(b, x, c2, act="silu", k=5):
    c_ = b.shape(x)[1] // 2
    x = conv_act(b, x, c_, 1, act=act)
    y1 = maxpool_same(b, x, k)
    y2 = maxpool_same(b, y1, k)
    y3 = maxpool_same(b, y2, k)
    return conv_act(b, b.concat([x, y1, y2, y3]), c2, 1, act=act)


V5_ANCHORS = ((10, 13, 16, 30, 33, 23), (30, 61, 62, 45, 59, 119), (116, 90, 156, 198, 373, 326))
STRIDES = (8, 16, 32)


def _grid(ny, nx):
    """(x, y) of every cell, [ny, nx, 2]."""
    yv, xv = np.meshgrid(np.arange(ny, dtype=np.float32), np.arange(nx, dtype=np.float32), indexing="ij")
    return np.stack([xv, yv], -1)


def _v5_detect(b, feats, nc=COCO_CLASSES, na=3):
    """Detect with 5d_to_4d.diff: per level and anchor, sigmoid, split, xy/wh decode."""
    no = nc + 5
    z = []
    for i, x in enumerate(feats):
        with b.scope(f"model.24.m.{i}"):
            x = b.conv(x, na * no, 1)
        _, _, ny, nx = b.shape(x)
        x = b.transpose(b.reshape(x, [1, na, no, ny, nx]), [0, 1, 3, 4, 2])
        per_anchor = []
        for a in range(na):
            xa = b.reshape(gather(b, x, 1, a), [1, ny, nx, no])
            grid = b.const(_grid(ny, nx)[None] - 0.5, base="grid")
            anchor = np.array(V5_ANCHORS[i][2 * a:2 * a + 2], np.float32)
            anchor_grid = b.const(np.broadcast_to(anchor, (1, ny, nx, 2)), base="anchor_grid")
            xy, wh, conf = b.split(b.sigmoid(xa), [2, 2, nc + 1], axis=3)
            xy = b.mul(b.add(b.mul(xy, 2.0), grid), float(STRIDES[i]))
            wh = b.mul(power(b, b.mul(wh, 2.0), 2.0), anchor_grid)
            per_anchor.append(b.concat([xy, wh, conf], axis=3))
        y = b.concat(per_anchor, axis=1)
        z.append(b.reshape(y, [1, na * nx * ny, no]))
    return b.concat(z, axis=1)


def yolov5(name, seed, size=640, gd=0.67, gw=0.75):
    b = Builder(name, seed)
    x = b.input("image", [1, 3, size, size])

    def ch(c):
        return _make_divisible(c * gw, 8)

    def depth(n):
        return max(round(n * gd), 1) if n > 1 else n

    layers = {}
    with b.scope("model.0"):
        x = conv_act(b, x, ch(64), 6, 2, pad=2)
    with b.scope("model.1"):
        x = conv_act(b, x, ch(128), 3, 2)
    spec = ((128, 3), (256, 6), (512, 9), (1024, 3))
    for k, (c, n) in enumerate(spec):
        idx = 2 + 2 * k
        with b.scope(f"model.{idx}"):
            x = _v5_c3(b, x, ch(c), depth(n))
        layers[idx] = x
        if k < 3:
            with b.scope(f"model.{idx + 1}"):
                x = conv_act(b, x, ch(2 * c), 3, 2)
    with b.scope("model.9"):
        x = _sppf(b, x, ch(1024))
    with b.scope("model.10"):
        p5 = x = conv_act(b, x, ch(512), 1)
    x = b.concat([b.resize(x, 2), layers[6]])
    with b.scope("model.13"):
        x = _v5_c3(b, x, ch(512), depth(3), False)
    with b.scope("model.14"):
        p4 = x = conv_act(b, x, ch(256), 1)
    x = b.concat([b.resize(x, 2), layers[4]])
    with b.scope("model.17"):
        out3 = x = _v5_c3(b, x, ch(256), depth(3), False)
    with b.scope("model.18"):
        x = b.concat([conv_act(b, x, ch(256), 3, 2), p4])
    with b.scope("model.20"):
        out4 = x = _v5_c3(b, x, ch(512), depth(3), False)
    with b.scope("model.21"):
        x = b.concat([conv_act(b, x, ch(512), 3, 2), p5])
    with b.scope("model.23"):
        out5 = _v5_c3(b, x, ch(1024), depth(3), False)
    pred = _v5_detect(b, [out3, out4, out5])
    # AI Hub: detect_postprocess (boxes to xyxy, scores * conf, best class).
    boxes = b.slice(pred, 2, 0, 4)
    conf = b.slice(pred, 2, 4, 5)
    scores = b.slice(pred, 2, 5, INT64_MAX)
    boxes = xywh2xyxy_chunked(b, boxes)
    scores, classes = most_likely_chunked(b, b.mul(scores, conf))
    for t in (boxes, scores, classes):
        b.output(t)
    return b


# -- YOLOv7-tiny ---------------------------------------------------------------------------

LEAKY = "leaky0.1"
V7_ANCHORS = V5_ANCHORS


def _v7_elan(b, x, c):
    """The tiny ELAN block: two 1x1 branches, two 3x3 on the second, concat of four, 1x1."""
    a = conv_act(b, x, c, 1, act=LEAKY)
    y1 = conv_act(b, x, c, 1, act=LEAKY)
    y2 = conv_act(b, y1, c, 3, act=LEAKY)
    y3 = conv_act(b, y2, c, 3, act=LEAKY)
    return b.concat([y3, y2, y1, a])


def yolov7(name, seed, size=640, nc=COCO_CLASSES, na=3):
    b = Builder(name, seed)
    x = b.input("image", [1, 3, size, size])
    x = conv_act(b, x, 32, 3, 2, act=LEAKY)  # 0
    x = conv_act(b, x, 64, 3, 2, act=LEAKY)  # 1
    x = conv_act(b, _v7_elan(b, x, 32), 64, 1, act=LEAKY)  # 7
    x = conv_act(b, _v7_elan(b, b.maxpool(x, 2, 2), 64), 128, 1, act=LEAKY)  # 14
    l14 = x
    x = conv_act(b, _v7_elan(b, b.maxpool(x, 2, 2), 128), 256, 1, act=LEAKY)  # 21
    l21 = x
    x = conv_act(b, _v7_elan(b, b.maxpool(x, 2, 2), 256), 512, 1, act=LEAKY)  # 28
    # SPPCSPC-tiny
    a = conv_act(b, x, 256, 1, act=LEAKY)
    y = conv_act(b, x, 256, 1, act=LEAKY)
    y = b.concat([maxpool_same(b, y, 13), maxpool_same(b, y, 9), maxpool_same(b, y, 5), y])
    y = conv_act(b, y, 256, 1, act=LEAKY)
    l37 = x = conv_act(b, b.concat([y, a]), 256, 1, act=LEAKY)
    # top-down
    x = b.resize(conv_act(b, x, 128, 1, act=LEAKY), 2)
    x = b.concat([conv_act(b, l21, 128, 1, act=LEAKY), x])
    l47 = x = conv_act(b, _v7_elan(b, x, 64), 128, 1, act=LEAKY)
    x = b.resize(conv_act(b, x, 64, 1, act=LEAKY), 2)
    x = b.concat([conv_act(b, l14, 64, 1, act=LEAKY), x])
    l57 = x = conv_act(b, _v7_elan(b, x, 32), 64, 1, act=LEAKY)
    # bottom-up
    x = b.concat([conv_act(b, x, 128, 3, 2, act=LEAKY), l47])
    l65 = x = conv_act(b, _v7_elan(b, x, 64), 128, 1, act=LEAKY)
    x = b.concat([conv_act(b, x, 256, 3, 2, act=LEAKY), l37])
    l73 = conv_act(b, _v7_elan(b, x, 128), 256, 1, act=LEAKY)
    feats = [conv_act(b, l57, 128, 3, act=LEAKY), conv_act(b, l65, 256, 3, act=LEAKY),
             conv_act(b, l73, 512, 3, act=LEAKY)]
    # AI Hub's _YoloV7Detector.
    no = nc + 5
    all_xy, all_wh, all_scores = [], [], []
    for i, f in enumerate(feats):
        with b.scope(f"detector.m.{i}"):
            x = b.sigmoid(b.conv(f, na * no, 1))
        stride = STRIDES[i]
        nx = ny = size // stride
        x = b.transpose(b.reshape(x, [1, na, no, nx, ny]), [0, 1, 3, 4, 2])
        pads = max(7 - no, 0)
        x = b.node("Pad", [x, b.ints([0] * 9 + [pads]), b.const(np.float32(0), base="pad_value")],
                   [b.shape(x)[:4] + [no + pads]], mode="constant")
        grid = b.const(_grid(ny, nx).reshape(1, 1, ny, nx, 2), base="grid")
        xy = b.mul(b.add(b.sub(b.mul(b.slice(x, -1, 0, 2), 2.0), 0.5), grid), float(stride))
        all_xy.append(b.reshape(xy, [1, na * nx * ny, 2]))
        wh = b.reshape(b.slice(x, -1, 2, 4), [1, na, nx * ny, 2])
        anchor_grid = b.const(np.array(V7_ANCHORS[i], np.float32).reshape(1, na, 1, 2), base="anchor_grid")
        wh = b.mul(power(b, b.mul(wh, 2.0), 2.0), anchor_grid)
        all_wh.append(b.reshape(wh, [1, na * nx * ny, 2]))
        all_scores.append(b.reshape(b.slice(x, -1, 4, INT64_MAX), [1, na * nx * ny, max(3, no - 4)]))
    xy, wh, scores = (b.concat(t, axis=1) for t in (all_xy, all_wh, all_scores))
    # detect_postprocess_split_input
    cx, cy = gather(b, xy, -1, 0), gather(b, xy, -1, 1)
    w2, h2 = b.mul(gather(b, wh, -1, 0), 0.5), b.mul(gather(b, wh, -1, 1), 0.5)
    boxes = b.concat([unsqueeze(b, b.sub(cx, w2), -1), unsqueeze(b, b.sub(cy, h2), -1),
                      unsqueeze(b, b.add(cx, w2), -1), unsqueeze(b, b.add(cy, h2), -1)], axis=-1)
    conf = gather(b, scores, 2, 0)
    scores, classes = max_dim(b, b.add(b.slice(scores, 2, 1, INT64_MAX), 1e-10), -1)
    scores = b.mul(scores, conf)
    for t in (boxes, scores, cast(b, classes, TensorProto.FLOAT)):
        b.output(t)
    # The table's 6.39M is the parameter count of AI Hub's YoloV7 module as loaded, not of
    # this graph's PyTorch model (6,227,101, 2.6 % below): yolov7's attempt_load fuses every
    # BatchNorm into its conv (gamma and beta of c channels become c biases), and the module
    # keeps the source model's own Detect convs (skipped in forward, traced=True) beside
    # _YoloV7Detector's copy of them. Count as that module does: 6,448,954 (0.9 %).
    fused = sum(b.shape(n.input[0])[1] for n in b.nodes if n.op_type == "BatchNormalization")
    source_detect = sum(na * no * (c + 1) for c in (128, 256, 512))
    b.params += source_detect - fused
    return b


# -- YOLOv8-N ------------------------------------------------------------------------------


def _v8_bottleneck(b, x, c2, shortcut):
    return _bottleneck(b, x, c2, shortcut, 3)


def _c2f(b, x, c2, n, shortcut=False):
    c = c2 // 2
    y = b.split(conv_act(b, x, 2 * c, 1), [c, c], axis=1)
    for j in range(n):
        with b.scope(f"m.{j}"):
            y.append(_v8_bottleneck(b, y[-1], c, shortcut))
    return conv_act(b, b.concat(y), c2, 1)


def yolov8(name, seed, size=640, depth=0.33, width=0.25, max_channels=1024, nc=COCO_CLASSES, reg_max=16):
    b = Builder(name, seed)
    x = b.input("image", [1, 3, size, size])

    def ch(c):
        return _make_divisible(min(c, max_channels) * width, 8)

    def rep(n):
        return max(round(n * depth), 1) if n > 1 else n

    layers = {}
    with b.scope("model.0"):
        x = conv_act(b, x, ch(64), 3, 2)
    for k, (c, n) in enumerate(((128, 3), (256, 6), (512, 6), (1024, 3))):
        with b.scope(f"model.{1 + 2 * k}"):
            x = conv_act(b, x, ch(c), 3, 2)
        with b.scope(f"model.{2 + 2 * k}"):
            x = _c2f(b, x, ch(c), rep(n), True)
        layers[2 + 2 * k] = x
    with b.scope("model.9"):
        p5 = x = _sppf(b, x, ch(1024))
    with b.scope("model.12"):
        p4 = x = _c2f(b, b.concat([b.resize(x, 2), layers[6]]), ch(512), rep(3))
    with b.scope("model.15"):
        out3 = x = _c2f(b, b.concat([b.resize(x, 2), layers[4]]), ch(256), rep(3))
    with b.scope("model.18"):
        out4 = x = _c2f(b, b.concat([conv_act(b, x, ch(256), 3, 2), p4]), ch(512), rep(3))
    with b.scope("model.21"):
        out5 = _c2f(b, b.concat([conv_act(b, x, ch(512), 3, 2), p5]), ch(1024), rep(3))
    feats = [out3, out4, out5]
    # Detect (head.py at 3208eb72; AI Hub returns dbox and cls.sigmoid() apart)
    c1 = b.shape(out3)[1]
    c2, c3 = max(16, c1 // 4, reg_max * 4), max(c1, min(nc, 100))
    no = nc + 4 * reg_max
    flat = []
    anchors, strides = [], []
    for i, f in enumerate(feats):
        with b.scope(f"model.22.cv2.{i}"):
            box = b.conv(conv_act(b, conv_act(b, f, c2, 3), c2, 3), 4 * reg_max, 1)
        with b.scope(f"model.22.cv3.{i}"):
            cls = b.conv(conv_act(b, conv_act(b, f, c3, 3), c3, 3), nc, 1)
        _, _, h, w = b.shape(f)
        flat.append(b.reshape(b.concat([box, cls]), [1, no, -1]))
        anchors.append(_grid(h, w).reshape(-1, 2) + 0.5)
        strides.append(np.full(h * w, size // h, np.float32))
    box, cls = b.split(b.concat(flat, axis=2), [4 * reg_max, nc], axis=1)
    a = b.shape(box)[2]
    # DFL: softmax over the 16 bins, then a fixed 1x1 conv (a parameter: 16 values).
    d = b.softmax(b.transpose(b.reshape(box, [1, 4, reg_max, a]), [0, 2, 1, 3]), axis=1)
    dfl_w = b.param("dfl.conv.weight", np.arange(reg_max, dtype=np.float32).reshape(1, reg_max, 1, 1))
    d = b.node("Conv", [d, dfl_w], [[1, 1, 4, a]], kernel_shape=[1, 1], strides=[1, 1], pads=[0, 0, 0, 0],
               dilations=[1, 1], group=1)
    d = b.reshape(d, [1, 4, a])
    anchor_points = b.const(np.concatenate(anchors).T[None], base="anchors")
    lt, rb = b.split(d, [2, 2], axis=1)
    x1y1 = b.sub(anchor_points, lt)
    x2y2 = b.add(anchor_points, rb)
    dbox = b.concat([b.mul(b.add(x1y1, x2y2), 0.5), b.sub(x2y2, x1y1)], axis=1)
    dbox = b.mul(dbox, b.const(np.concatenate(strides)[None], base="strides"))
    scores = b.sigmoid(cls)
    # yolo_detect_postprocess (not the quantized variant)
    boxes = xywh2xyxy_chunked(b, b.transpose(dbox, [0, 2, 1]))
    scores, classes = max_dim(b, b.transpose(scores, [0, 2, 1]), -1)
    for t in (boxes, scores, cast(b, classes, TensorProto.FLOAT)):
        b.output(t)
    return b


# -- DETR-ResNet50 -------------------------------------------------------------------------


def frozen_bn(b, x, eps=1e-5):
    """DetrFrozenBatchNorm2d: its statistics and affine are buffers, not parameters."""
    c = b.shape(x)[1]
    rng = b.rng(b.fresh("frozen_bn"))
    vals = [rng.uniform(0.5, 1.5, c), rng.standard_normal(c) * 0.1, rng.standard_normal(c) * 0.1,
            rng.uniform(0.5, 2.0, c)]
    keys = ("weight", "bias", "running_mean", "running_var")
    names = [b.const(v, base=f"bn.{k}") for v, k in zip(vals, keys)]
    return b.node("BatchNormalization", [x] + names, [b.shape(x)], epsilon=eps)


def _conv_fbn(b, x, cout, k, stride=1, pad=None, act=True):
    y = frozen_bn(b, b.conv(x, cout, k, stride, pad, bias=False))
    return b.relu(y) if act else y


def resnet50_frozen(b, x):
    """torchvision/timm ResNet-50 (stride on the 3x3) up to layer4, frozen BatchNorm."""
    x = b.maxpool(_conv_fbn(b, x, 64, 7, 2, 3), 3, 2, 1)
    inplanes = 64
    for i, (planes, n) in enumerate(zip((64, 128, 256, 512), (3, 4, 6, 3))):
        for j in range(n):
            with b.scope(f"layer{i + 1}.{j}"):
                s = 2 if i > 0 and j == 0 else 1
                y = _conv_fbn(b, x, planes, 1, 1, 0)
                y = _conv_fbn(b, y, planes, 3, s)
                y = _conv_fbn(b, y, planes * 4, 1, 1, 0, act=False)
                idn = _conv_fbn(b, x, planes * 4, 1, s, 0, act=False) if j == 0 else x
                x = b.relu(b.add(y, idn))
                inplanes = planes * 4
    assert inplanes == 2048
    return x


def sine_position(h, w, d_model=256, temperature=10000.0):
    """DetrSinePositionEmbedding(normalize=True) of an all-ones mask: [1, h*w, d_model]."""
    npf = d_model // 2
    scale = 2 * math.pi
    y = np.cumsum(np.ones((h, w)), 0)
    x = np.cumsum(np.ones((h, w)), 1)
    y = y / (y[-1:, :] + 1e-6) * scale
    x = x / (x[:, -1:] + 1e-6) * scale
    dim_t = temperature ** (2 * (np.arange(npf) // 2) / npf)
    px, py = x[..., None] / dim_t, y[..., None] / dim_t
    px = np.stack([np.sin(px[..., 0::2]), np.cos(px[..., 1::2])], -1).reshape(h, w, npf)
    py = np.stack([np.sin(py[..., 0::2]), np.cos(py[..., 1::2])], -1).reshape(h, w, npf)
    pos = np.concatenate([py, px], -1)  # [h, w, d]: the exporter folds permute and flatten
    return pos.reshape(1, h * w, d_model).astype(np.float32)


def _heads(b, t, n, heads, hd):
    """_shape(...).view(bsz * heads, -1, hd): Reshape, Transpose, Reshape."""
    t = b.transpose(b.reshape(t, [1, n, heads, hd]), [0, 2, 1, 3])
    return b.reshape(t, [heads, n, hd])


def detr_attention(b, q_in, k_in, v_in, mask=None, d=256, heads=8):
    """DetrAttention: q/k/v projections, bmm, (zero) mask, softmax, bmm, out_proj."""
    hd = d // heads
    tq, tk = b.shape(q_in)[1], b.shape(k_in)[1]
    with b.scope("q_proj"):
        q = b.mul(b.linear(q_in, d), hd ** -0.5)
    with b.scope("k_proj"):
        k = _heads(b, b.linear(k_in, d), tk, heads, hd)
    with b.scope("v_proj"):
        v = _heads(b, b.linear(v_in, d), tk, heads, hd)
    q = _heads(b, q, tq, heads, hd)
    w = b.matmul(q, b.transpose(k, [0, 2, 1]))
    if mask is not None:
        w = b.reshape(b.add(b.reshape(w, [1, heads, tq, tk]), mask), [heads, tq, tk])
    o = b.matmul(b.softmax(w, -1), v)
    o = b.reshape(b.transpose(b.reshape(o, [1, heads, tq, hd]), [0, 2, 1, 3]), [1, tq, d])
    with b.scope("out_proj"):
        return b.linear(o, d)


def _ffn(b, x, d, ffn):
    with b.scope("fc1"):
        y = b.relu(b.linear(x, ffn))
    with b.scope("fc2"):
        return b.linear(y, d)


def detr(name, seed, size=480, d=256, heads=8, ffn=2048, layers=6, queries=100, classes=92):
    b = Builder(name, seed)
    image = b.input("image", [1, 3, size, size])
    # AI Hub's normalize_image_torchvision
    mean = b.const(np.array([0.485, 0.456, 0.406], np.float32).reshape(1, 3, 1, 1), base="mean")
    std = b.const(np.array([0.229, 0.224, 0.225], np.float32).reshape(1, 3, 1, 1), base="std")
    x = b.div(b.sub(image, mean), std)
    with b.scope("backbone"):
        x = resnet50_frozen(b, x)
    with b.scope("input_projection"):
        x = b.conv(x, d, 1)
    _, _, h, w = b.shape(x)
    n = h * w
    x = b.transpose(b.reshape(x, [1, d, n]), [0, 2, 1])  # flatten(2).permute(0, 2, 1)
    pos = b.const(sine_position(h, w, d), base="object_queries")
    enc_mask = b.const(np.zeros((1, 1, n, n), np.float32), base="encoder_attention_mask")
    for i in range(layers):
        with b.scope(f"encoder.layers.{i}"):
            qk = b.add(x, pos)
            with b.scope("self_attn"):
                y = detr_attention(b, qk, qk, x, enc_mask, d, heads)
            x = b.layernorm(b.add(x, y))
            x = b.layernorm(b.add(x, _ffn(b, x, d, ffn)))
    memory = x
    query_pos = b.param("query_position_embeddings.weight",
                        b.rng("query_position_embeddings").standard_normal((1, queries, d)))
    cross_mask = b.const(np.zeros((1, 1, queries, n), np.float32), base="encoder_attention_mask")
    x = b.const(np.zeros((1, queries, d), np.float32), base="queries")
    for i in range(layers):
        with b.scope(f"decoder.layers.{i}"):
            qk = b.add(x, query_pos)
            with b.scope("self_attn"):
                y = detr_attention(b, qk, qk, x, None, d, heads)
            x = b.layernorm(b.add(x, y))
            with b.scope("encoder_attn"):
                y = detr_attention(b, b.add(x, query_pos), b.add(memory, pos), memory, cross_mask, d, heads)
            x = b.layernorm(b.add(x, y))
            x = b.layernorm(b.add(x, _ffn(b, x, d, ffn)))
    with b.scope("decoder.layernorm"):
        x = b.layernorm(x)
    with b.scope("class_labels_classifier"):
        logits = b.linear(x, classes)
    with b.scope("bbox_predictor"):
        y = b.relu(b.linear(x, d))
        y = b.relu(b.linear(y, d))
        pred_boxes = b.sigmoid(b.linear(y, 4))
    # AI Hub's detr_postprocess
    probs = b.softmax(logits, -1)
    scores, labels = max_dim(b, b.slice(probs, -1, 0, -1), -1)
    cx, cy = gather(b, pred_boxes, -1, 0), gather(b, pred_boxes, -1, 1)
    w2, h2 = b.mul(gather(b, pred_boxes, -1, 2), 0.5), b.mul(gather(b, pred_boxes, -1, 3), 0.5)
    boxes = stack(b, [b.sub(cx, w2), b.sub(cy, h2), b.add(cx, w2), b.add(cy, h2)])
    boxes = b.mul(boxes, b.const(np.array([size, size, size, size], np.float32), base="image_size"))
    for t in (boxes, scores, cast(b, labels, TensorProto.INT32)):
        b.output(t)
    return b


MODELS = {
    "yolov5": lambda seed: yolov5("yolov5", seed),
    "yolov7": lambda seed: yolov7("yolov7", seed),
    "yolov8_det": lambda seed: yolov8("yolov8_det", seed),
    "detr_resnet50": lambda seed: detr("detr_resnet50", seed),
}
