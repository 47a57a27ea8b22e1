"""Mobile classification CNNs of AI Hub Models, 1000 ImageNet classes each:

- efficientnet_b0, efficientnet_b4, efficientnet_v2_s: torchvision's EfficientNet
  (pytorch/vision torchvision/models/efficientnet.py: MBConv and FusedMBConv,
  SiLU, squeeze-excitation SiLU + Sigmoid with input_channels // 4 squeezed
  channels, width/depth multipliers 1.4/1.8 for B4, BatchNorm eps 1e-3 for V2-S),
  at 224, 380 and 384 pixels as architectures.tsv gives them.
- mnasnet05: torchvision's mnasnet0_5 (torchvision/models/mnasnet.py), the
  model's version 2, whose stem is scaled by alpha too (16 -> 16 -> 8 channels):
  AI Hub loads IMAGENET1K_V1 (mnasnet0.5_top1_67.823), the checkpoint retrained
  for version 2 (the version-1 one was 67.592), 2,218,512 parameters as
  torchvision documents. The head is x.mean([2, 3]) (ReduceMean) then Linear.
- mobilenet_v2: tonylins/pytorch-mobilenet-v2 MobileNetV2.py (commit 99f2136, as
  qai_hub_models/models/mobilenet_v2/model.py loads it, width_mult 1): unlike
  torchvision's, the head is x.mean(3).mean(2) (two ReduceMean) and a bare
  Linear(1280, 1000) without Dropout; last_channel 1280.
- mobilenet_v3_large, mobilenet_v3_small: torchvision/models/mobilenetv3.py
  (hardswish, squeeze-excitation ReLU + Hardsigmoid with _make_divisible(c // 4, 8)
  channels, BatchNorm eps 1e-3, the classifier Linear-Hardswish-Dropout-Linear).

The input normalization AI Hub's ImagenetClassifier wrapper may apply is left
out, as in resnet.py.
"""

import math

from aihub.builder import Builder


def make_divisible(v, divisor=8, min_value=None):
    """torchvision.models._utils._make_divisible."""
    min_value = divisor if min_value is None else min_value
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


def squeeze_excitation(b, x, squeeze, act, scale_act):
    """torchvision.ops.SqueezeExcitation: avgpool, fc1, act, fc2, scale_act, scale * x."""
    c = b.shape(x)[1]
    s = b.global_avgpool(x)
    s = b.act(b.conv(s, squeeze, 1, pad=0), act)
    s = b.act(b.conv(s, c, 1, pad=0), scale_act)
    return b.mul(s, x)


def _classifier_head(b, x, classes):
    """AdaptiveAvgPool2d(1), flatten(x, 1), (Dropout), Linear."""
    return b.linear(b.flatten(b.global_avgpool(x)), classes)


# -- EfficientNet (V1 and V2) -------------------------------------------------------


def _mbconv(b, x, cin, cout, expand, k, stride, eps):
    exp = make_divisible(cin * expand, 8)
    y = x
    if exp != cin:
        y = b.conv_bn(y, exp, 1, pad=0, act="silu", eps=eps)
    y = b.conv_bn(y, exp, k, stride, groups=exp, act="silu", eps=eps)
    y = squeeze_excitation(b, y, max(1, cin // 4), "silu", "sigmoid")
    y = b.conv_bn(y, cout, 1, pad=0, eps=eps)
    if stride == 1 and cin == cout:
        y = b.add(y, x)
    return y


def _fused_mbconv(b, x, cin, cout, expand, k, stride, eps):
    exp = make_divisible(cin * expand, 8)
    if exp != cin:
        y = b.conv_bn(x, exp, k, stride, act="silu", eps=eps)
        y = b.conv_bn(y, cout, 1, pad=0, eps=eps)
    else:
        y = b.conv_bn(x, cout, k, stride, act="silu", eps=eps)
    if stride == 1 and cin == cout:
        y = b.add(y, x)
    return y


# (block, expand_ratio, kernel, stride, input_channels, out_channels, num_layers)
_EFFNET_B = [("mb", 1, 3, 1, 32, 16, 1), ("mb", 6, 3, 2, 16, 24, 2), ("mb", 6, 5, 2, 24, 40, 2),
             ("mb", 6, 3, 2, 40, 80, 3), ("mb", 6, 5, 1, 80, 112, 3), ("mb", 6, 5, 2, 112, 192, 4),
             ("mb", 6, 3, 1, 192, 320, 1)]
_EFFNET_V2_S = [("fused", 1, 3, 1, 24, 24, 2), ("fused", 4, 3, 2, 24, 48, 4), ("fused", 4, 3, 2, 48, 64, 4),
                ("mb", 4, 3, 2, 64, 128, 6), ("mb", 6, 3, 1, 128, 160, 9), ("mb", 6, 3, 2, 160, 256, 15)]


def efficientnet(name, seed, setting, size, width=1.0, depth=1.0, last_channel=None, eps=1e-5,
                 classes=1000):
    b = Builder(name, seed)
    x = b.input("image", [1, 3, size, size])
    conf = []
    for kind, e, k, s, cin, cout, n in setting:
        if kind == "mb":  # MBConvConfig scales channels and depth; FusedMBConvConfig does not
            cin, cout = make_divisible(cin * width, 8), make_divisible(cout * width, 8)
            n = int(math.ceil(n * depth))
        conf.append((kind, e, k, s, cin, cout, n))
    with b.scope("features.0"):
        x = b.conv_bn(x, conf[0][4], 3, 2, act="silu", eps=eps)
    for i, (kind, e, k, s, cin, cout, n) in enumerate(conf):
        block = _mbconv if kind == "mb" else _fused_mbconv
        for j in range(n):
            with b.scope(f"features.{i + 1}.{j}"):
                x = block(b, x, cin if j == 0 else cout, cout, e, k, s if j == 0 else 1, eps)
    last_in = conf[-1][5]
    with b.scope(f"features.{len(conf) + 1}"):
        x = b.conv_bn(x, last_channel or 4 * last_in, 1, pad=0, act="silu", eps=eps)
    b.output(_classifier_head(b, x, classes))
    return b


# -- MNASNet ------------------------------------------------------------------------------


def _round_to_multiple_of(val, divisor, round_up_bias=0.9):
    new_val = max(divisor, int(val + divisor / 2) // divisor * divisor)
    return new_val if new_val >= round_up_bias * val else new_val + divisor


def mnasnet(name, seed, alpha, size=224, classes=1000, stem_v1=False):
    b = Builder(name, seed)
    x = b.input("image", [1, 3, size, size])
    depths = [_round_to_multiple_of(d * alpha, 8) for d in (32, 16, 24, 40, 80, 96, 192, 320)]
    if stem_v1:  # version 1's fixed stem (older checkpoints)
        depths[0], depths[1] = 32, 16
    with b.scope("layers.stem"):
        x = b.conv_bn(x, depths[0], 3, 2, act="relu")
        x = b.conv_bn(x, depths[0], 3, 1, groups=depths[0], act="relu")
        x = b.conv_bn(x, depths[1], 1, pad=0)
    # (kernel, stride, expansion, repeats) of the six stacks
    stacks = [(3, 2, 3, 3), (5, 2, 3, 3), (5, 2, 6, 3), (3, 1, 6, 2), (5, 2, 6, 4), (3, 1, 6, 1)]
    cin = depths[1]
    for i, (k, s, e, n) in enumerate(stacks):
        cout = depths[i + 2]
        for j in range(n):
            with b.scope(f"layers.{8 + i}.{j}"):
                c_in, stride = (cin, s) if j == 0 else (cout, 1)
                mid = c_in * e
                y = b.conv_bn(x, mid, 1, pad=0, act="relu")
                y = b.conv_bn(y, mid, k, stride, groups=mid, act="relu")
                y = b.conv_bn(y, cout, 1, pad=0)
                x = b.add(y, x) if c_in == cout and stride == 1 else y
        cin = cout
    with b.scope("layers.head"):
        x = b.conv_bn(x, 1280, 1, pad=0, act="relu")
    x = b.reduce_mean(x, [2, 3], keepdims=False)
    b.output(b.linear(x, classes))
    return b


# -- MobileNetV2 (tonylins/pytorch-mobilenet-v2) ------------------------------------------------


def mobilenet_v2(name, seed, size=224, classes=1000, width_mult=1.0):
    b = Builder(name, seed)
    x = b.input("image", [1, 3, size, size])
    cin = 32  # "first channel is always 32"
    last = int(math.ceil(1280 * width_mult / 8) * 8) if width_mult > 1.0 else 1280
    with b.scope("features.0"):
        x = b.conv_bn(x, cin, 3, 2, act="relu6")
    idx = 1
    for t, c, n, s in [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
                       (6, 160, 3, 2), (6, 320, 1, 1)]:
        cout = int(math.ceil(c * width_mult / 8) * 8) if t > 1 else c
        for i in range(n):
            stride = s if i == 0 else 1
            hidden = int(cin * t)
            with b.scope(f"features.{idx}"):
                y = x
                if t != 1:
                    y = b.conv_bn(y, hidden, 1, pad=0, act="relu6")
                y = b.conv_bn(y, hidden, 3, stride, groups=hidden, act="relu6")
                y = b.conv_bn(y, cout, 1, pad=0)
                x = b.add(x, y) if stride == 1 and cin == cout else y
            cin = cout
            idx += 1
    with b.scope(f"features.{idx}"):
        x = b.conv_bn(x, last, 1, pad=0, act="relu6")
    x = b.reduce_mean(b.reduce_mean(x, [3], keepdims=False), [2], keepdims=False)
    b.output(b.linear(x, classes))
    return b


# -- MobileNetV3 (torchvision) --------------------------------------------------------------------

# (input_channels, kernel, expanded_channels, out_channels, use_se, activation, stride)
_V3_LARGE = [(16, 3, 16, 16, False, "RE", 1), (16, 3, 64, 24, False, "RE", 2),
             (24, 3, 72, 24, False, "RE", 1), (24, 5, 72, 40, True, "RE", 2),
             (40, 5, 120, 40, True, "RE", 1), (40, 5, 120, 40, True, "RE", 1),
             (40, 3, 240, 80, False, "HS", 2), (80, 3, 200, 80, False, "HS", 1),
             (80, 3, 184, 80, False, "HS", 1), (80, 3, 184, 80, False, "HS", 1),
             (80, 3, 480, 112, True, "HS", 1), (112, 3, 672, 112, True, "HS", 1),
             (112, 5, 672, 160, True, "HS", 2), (160, 5, 960, 160, True, "HS", 1),
             (160, 5, 960, 160, True, "HS", 1)]
_V3_SMALL = [(16, 3, 16, 16, True, "RE", 2), (16, 3, 72, 24, False, "RE", 2),
             (24, 3, 88, 24, False, "RE", 1), (24, 5, 96, 40, True, "HS", 2),
             (40, 5, 240, 40, True, "HS", 1), (40, 5, 240, 40, True, "HS", 1),
             (40, 5, 120, 48, True, "HS", 1), (48, 5, 144, 48, True, "HS", 1),
             (48, 5, 288, 96, True, "HS", 2), (96, 5, 576, 96, True, "HS", 1),
             (96, 5, 576, 96, True, "HS", 1)]


def mobilenet_v3(name, seed, setting, last_channel, size=224, classes=1000, eps=1e-3):
    b = Builder(name, seed)
    x = b.input("image", [1, 3, size, size])
    with b.scope("features.0"):
        x = b.conv_bn(x, setting[0][0], 3, 2, act="hardswish", eps=eps)
    for i, (cin, k, exp, cout, se, a, s) in enumerate(setting):
        act = "hardswish" if a == "HS" else "relu"
        with b.scope(f"features.{i + 1}"):
            y = x
            if exp != cin:
                y = b.conv_bn(y, exp, 1, pad=0, act=act, eps=eps)
            y = b.conv_bn(y, exp, k, s, groups=exp, act=act, eps=eps)
            if se:
                y = squeeze_excitation(b, y, make_divisible(exp // 4, 8), "relu", "hardsigmoid")
            y = b.conv_bn(y, cout, 1, pad=0, eps=eps)
            x = b.add(y, x) if s == 1 and cin == cout else y
    last_in = setting[-1][3]
    with b.scope(f"features.{len(setting) + 1}"):
        x = b.conv_bn(x, 6 * last_in, 1, pad=0, act="hardswish", eps=eps)
    x = b.flatten(b.global_avgpool(x))
    x = b.hardswish(b.linear(x, last_channel))
    b.output(b.linear(x, classes))
    return b


MODELS = {
    "efficientnet_b0": lambda seed: efficientnet("efficientnet_b0", seed, _EFFNET_B, 224),
    "efficientnet_b4": lambda seed: efficientnet("efficientnet_b4", seed, _EFFNET_B, 380, 1.4, 1.8),
    "efficientnet_v2_s": lambda seed: efficientnet("efficientnet_v2_s", seed, _EFFNET_V2_S, 384,
                                                   last_channel=1280, eps=1e-3),
    "mnasnet05": lambda seed: mnasnet("mnasnet05", seed, 0.5),
    "mobilenet_v2": lambda seed: mobilenet_v2("mobilenet_v2", seed),
    "mobilenet_v3_large": lambda seed: mobilenet_v3("mobilenet_v3_large", seed, _V3_LARGE, 1280),
    "mobilenet_v3_small": lambda seed: mobilenet_v3("mobilenet_v3_small", seed, _V3_SMALL, 1024),
}
