"""Classic ImageNet CNNs of torchvision (pytorch/vision, torchvision/models/), with the
1000-class head, as AI Hub Models wraps them (qai_hub_models/models/<model>/model.py
builds the torchvision network; its input normalization is left out, as in resnet.py):

  densenet121     densenet.py densenet121 (BN-ReLU-Conv layers; each dense layer
                  concatenates every earlier feature map, the block ends in one Concat)
  googlenet       googlenet.py googlenet, aux_logits=False (the pretrained form; the
                  auxiliary heads are not built), transform_input=False
  inception_v3    inception.py inception_v3 at 224x224 (info.yaml); the AuxLogits
                  head runs only in training, so it is not in the graph nor counted
  squeezenet1_1   squeezenet.py squeezenet1_1
  regnet          regnet.py regnet_x_3_2gf (AI Hub's regnet/model.py builds it;
                  15,296,552 parameters = the table's 15.3M)
  convnext_tiny   convnext.py convnext_tiny (LayerNorm2d as Transpose-LayerNorm-Transpose,
                  depthwise 7x7, Linear-GELU-Linear on NHWC, layer scale)
  shufflenet_v2   shufflenetv2.py shufflenet_v2_x0_5 (1,366,792 parameters)
"""

import math

import numpy as np

from aihub.builder import Builder


def _start(name, seed, size=224):
    b = Builder(name, seed)
    return b, b.input("image", [1, 3, size, size])


def _head(b, x, classes=1000):
    """AdaptiveAvgPool2d(1) -> flatten -> Linear."""
    b.output(b.linear(b.flatten(b.global_avgpool(x)), classes))
    return b


# -- DenseNet ------------------------------------------------------------------


def densenet(name, seed, growth=32, blocks=(6, 12, 24, 16), init_features=64, bn_size=4):
    b, x = _start(name, seed)
    x = b.relu(b.conv_bn(x, init_features, 7, 2, pad=3))
    x = b.maxpool(x, 3, 2, 1)
    for i, n in enumerate(blocks):
        feats = [x]
        for j in range(n):
            with b.scope(f"denseblock{i + 1}.denselayer{j + 1}"):
                y = b.concat(feats)  # torch.cat(prev_features), one input for the first layer
                y = b.relu(b.batchnorm(y))
                y = b.conv_bn(y, bn_size * growth, 1, pad=0, act="relu")  # conv1, norm2, relu2
                feats.append(b.conv(y, growth, 3, bias=False))
        x = b.concat(feats)
        if i != len(blocks) - 1:
            with b.scope(f"transition{i + 1}"):
                c = b.shape(x)[1] // 2
                x = b.conv(b.relu(b.batchnorm(x)), c, 1, pad=0, bias=False)
                x = b.avgpool(x, 2, 2)
    x = b.relu(b.batchnorm(x))  # norm5, then F.relu
    return _head(b, x)


# -- GoogLeNet and Inception v3 --------------------------------------------------


def _basic(b, x, cout, k, stride=1, pad=0):
    """BasicConv2d: Conv (no bias) -> BatchNorm(eps=0.001) -> ReLU."""
    return b.conv_bn(x, cout, k, stride, pad=pad, act="relu", eps=1e-3)


def _inception_v1(b, x, c1, c3r, c3, c5r, c5, pool):
    b1 = _basic(b, x, c1, 1)
    b2 = _basic(b, _basic(b, x, c3r, 1), c3, 3, pad=1)
    b3 = _basic(b, _basic(b, x, c5r, 1), c5, 3, pad=1)  # 3x3, torchvision's known deviation
    b4 = _basic(b, b.maxpool(x, 3, 1, 1, ceil_mode=True), pool, 1)
    return b.concat([b1, b2, b3, b4])


GOOGLENET_BLOCKS = {
    "3a": (64, 96, 128, 16, 32, 32), "3b": (128, 128, 192, 32, 96, 64),
    "4a": (192, 96, 208, 16, 48, 64), "4b": (160, 112, 224, 24, 64, 64),
    "4c": (128, 128, 256, 24, 64, 64), "4d": (112, 144, 288, 32, 64, 64),
    "4e": (256, 160, 320, 32, 128, 128),
    "5a": (256, 160, 320, 32, 128, 128), "5b": (384, 192, 384, 48, 128, 128),
}


def googlenet(name, seed):
    b, x = _start(name, seed)
    x = _basic(b, x, 64, 7, 2, pad=3)
    x = b.maxpool(x, 3, 2, ceil_mode=True)
    x = _basic(b, x, 64, 1)
    x = _basic(b, x, 192, 3, pad=1)
    x = b.maxpool(x, 3, 2, ceil_mode=True)
    for key, cfg in GOOGLENET_BLOCKS.items():
        with b.scope(f"inception{key}"):
            x = _inception_v1(b, x, *cfg)
        if key == "3b":
            x = b.maxpool(x, 3, 2, ceil_mode=True)
        elif key == "4e":
            x = b.maxpool(x, 2, 2, ceil_mode=True)
    return _head(b, x)


def _avg3(b, x):
    """F.avg_pool2d(kernel_size=3, stride=1, padding=1) (count_include_pad)."""
    return b.avgpool(x, 3, 1, 1)


def _inception_a(b, x, pool_features):
    b1 = _basic(b, x, 64, 1)
    b5 = _basic(b, _basic(b, x, 48, 1), 64, 5, pad=2)
    b3 = _basic(b, _basic(b, _basic(b, x, 64, 1), 96, 3, pad=1), 96, 3, pad=1)
    bp = _basic(b, _avg3(b, x), pool_features, 1)
    return b.concat([b1, b5, b3, bp])


def _inception_b(b, x):
    b3 = _basic(b, x, 384, 3, 2)
    bd = _basic(b, _basic(b, _basic(b, x, 64, 1), 96, 3, pad=1), 96, 3, 2)
    bp = b.maxpool(x, 3, 2)
    return b.concat([b3, bd, bp])


def _inception_c(b, x, c7):
    b1 = _basic(b, x, 192, 1)
    b7 = _basic(b, x, c7, 1)
    b7 = _basic(b, b7, c7, (1, 7), pad=(0, 3))
    b7 = _basic(b, b7, 192, (7, 1), pad=(3, 0))
    bd = _basic(b, x, c7, 1)
    bd = _basic(b, bd, c7, (7, 1), pad=(3, 0))
    bd = _basic(b, bd, c7, (1, 7), pad=(0, 3))
    bd = _basic(b, bd, c7, (7, 1), pad=(3, 0))
    bd = _basic(b, bd, 192, (1, 7), pad=(0, 3))
    bp = _basic(b, _avg3(b, x), 192, 1)
    return b.concat([b1, b7, bd, bp])


def _inception_d(b, x):
    b3 = _basic(b, _basic(b, x, 192, 1), 320, 3, 2)
    b7 = _basic(b, x, 192, 1)
    b7 = _basic(b, b7, 192, (1, 7), pad=(0, 3))
    b7 = _basic(b, b7, 192, (7, 1), pad=(3, 0))
    b7 = _basic(b, b7, 192, 3, 2)
    bp = b.maxpool(x, 3, 2)
    return b.concat([b3, b7, bp])


def _inception_e(b, x):
    b1 = _basic(b, x, 320, 1)
    b3 = _basic(b, x, 384, 1)
    b3 = b.concat([_basic(b, b3, 384, (1, 3), pad=(0, 1)), _basic(b, b3, 384, (3, 1), pad=(1, 0))])
    bd = _basic(b, _basic(b, x, 448, 1), 384, 3, pad=1)
    bd = b.concat([_basic(b, bd, 384, (1, 3), pad=(0, 1)), _basic(b, bd, 384, (3, 1), pad=(1, 0))])
    bp = _basic(b, _avg3(b, x), 192, 1)
    return b.concat([b1, b3, bd, bp])


def inception_v3(name, seed, size=224):
    b, x = _start(name, seed, size)
    x = _basic(b, x, 32, 3, 2)
    x = _basic(b, x, 32, 3)
    x = _basic(b, x, 64, 3, pad=1)
    x = b.maxpool(x, 3, 2)
    x = _basic(b, x, 80, 1)
    x = _basic(b, x, 192, 3)
    x = b.maxpool(x, 3, 2)
    for key, pf in (("5b", 32), ("5c", 64), ("5d", 64)):
        with b.scope(f"Mixed_{key}"):
            x = _inception_a(b, x, pf)
    with b.scope("Mixed_6a"):
        x = _inception_b(b, x)
    for key, c7 in (("6b", 128), ("6c", 160), ("6d", 160), ("6e", 192)):
        with b.scope(f"Mixed_{key}"):
            x = _inception_c(b, x, c7)
    with b.scope("Mixed_7a"):
        x = _inception_d(b, x)
    for key in ("7b", "7c"):
        with b.scope(f"Mixed_{key}"):
            x = _inception_e(b, x)
    return _head(b, x)  # avgpool -> dropout (gone in eval) -> flatten -> fc


# -- SqueezeNet 1.1 ---------------------------------------------------------------


def _fire(b, x, squeeze, e1, e3):
    s = b.relu(b.conv(x, squeeze, 1, pad=0))
    return b.concat([b.relu(b.conv(s, e1, 1, pad=0)), b.relu(b.conv(s, e3, 3, pad=1))])


def squeezenet1_1(name, seed, classes=1000):
    b, x = _start(name, seed)
    x = b.relu(b.conv(x, 64, 3, 2, pad=0))
    x = b.maxpool(x, 3, 2, ceil_mode=True)
    x = _fire(b, x, 16, 64, 64)
    x = _fire(b, x, 16, 64, 64)
    x = b.maxpool(x, 3, 2, ceil_mode=True)
    x = _fire(b, x, 32, 128, 128)
    x = _fire(b, x, 32, 128, 128)
    x = b.maxpool(x, 3, 2, ceil_mode=True)
    x = _fire(b, x, 48, 192, 192)
    x = _fire(b, x, 48, 192, 192)
    x = _fire(b, x, 64, 256, 256)
    x = _fire(b, x, 64, 256, 256)
    x = b.relu(b.conv(x, classes, 1, pad=0))  # classifier: dropout (gone), final_conv, ReLU
    b.output(b.flatten(b.global_avgpool(x)))
    return b


# -- RegNet ------------------------------------------------------------------------


def _make_divisible(v, divisor, min_value=None):
    min_value = min_value or divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


def regnet_block_params(depth, w_0, w_a, w_m, group_width, bottleneck_multiplier=1.0):
    """BlockParams.from_init_params: [(width, depth, group_width, bottleneck)] per stage
    (float32 arithmetic, as torch computes it)."""
    widths_cont = np.arange(depth, dtype=np.float32) * np.float32(w_a) + np.float32(w_0)
    capacity = np.round(np.log(widths_cont / np.float32(w_0)) / np.float32(math.log(w_m)))
    block_widths = (np.round(np.float32(w_0) * np.power(np.float32(w_m), capacity).astype(np.float32)
                             / 8) * 8).astype(int).tolist()
    splits = [w != wp for w, wp in zip(block_widths + [0], [0] + block_widths)]
    stage_widths = [w for w, t in zip(block_widths, splits[:-1]) if t]
    stage_depths = np.diff([d for d, t in enumerate(splits) if t]).tolist()
    out = []
    for w, d in zip(stage_widths, stage_depths):
        w_bot = int(w * bottleneck_multiplier)
        g = min(group_width, w_bot)
        w = int(_make_divisible(w_bot, g) / bottleneck_multiplier)
        out.append((w, d, g, bottleneck_multiplier))
    return out


def _damp_last_bn(b, lo=0.2, hi=0.5):
    """Gives the BatchNormalization just written (the last of a residual branch) a
    small scale, as trained residual networks have (egret_qdq.bn_params does the
    same), so the activations do not grow block after block."""
    bn = b.nodes[-1]
    gamma = bn.input[1]
    b.inits[gamma] = b.rng(gamma + ".damped").uniform(lo, hi, b.inits[gamma].shape).astype(np.float32)


def regnet(name, seed, depth=25, w_0=88, w_a=26.31, w_m=2.25, group_width=48, stem=32):
    b, x = _start(name, seed)
    x = b.conv_bn(x, stem, 3, 2, act="relu")  # SimpleStemIN
    width_in = stem
    for i, (w, d, g, bm) in enumerate(regnet_block_params(depth, w_0, w_a, w_m, group_width)):
        for j in range(d):
            with b.scope(f"block{i + 1}-{j}"):
                stride = 2 if j == 0 else 1
                w_b = int(round(w * bm))
                y = b.conv_bn(x, w_b, 1, pad=0, act="relu")
                y = b.conv_bn(y, w_b, 3, stride, groups=w_b // g, act="relu")
                y = b.conv_bn(y, w, 1, pad=0)
                _damp_last_bn(b)
                if width_in != w or stride != 1:
                    x = b.add(b.conv_bn(x, w, 1, stride, pad=0), y)  # proj(x) + f(x)
                else:
                    x = b.add(x, y)
                x = b.relu(x)
                width_in = w
    return _head(b, x)


# -- ConvNeXt ------------------------------------------------------------------------


def _layernorm2d(b, x, eps=1e-6):
    """LayerNorm2d: permute to NHWC, layer_norm over C, permute back."""
    return b.transpose(b.layernorm(b.transpose(x, (0, 2, 3, 1)), eps), (0, 3, 1, 2))


def _cnblock(b, x):
    dim = b.shape(x)[1]
    y = b.conv(x, dim, 7, pad=3, groups=dim)
    y = b.transpose(y, (0, 2, 3, 1))
    y = b.layernorm(y, 1e-6)
    y = b.linear(b.gelu(b.linear(y, 4 * dim)), dim)
    y = b.transpose(y, (0, 3, 1, 2))
    scale = b.param("layer_scale", b.rng(b.fresh("ls")).uniform(0.05, 0.2, (dim, 1, 1)))
    return b.add(b.mul(scale, y), x)


def convnext(name, seed, setting=((96, 192, 3), (192, 384, 3), (384, 768, 9), (768, None, 3))):
    b, x = _start(name, seed)
    x = _layernorm2d(b, b.conv(x, setting[0][0], 4, 4, pad=0))
    for i, (cin, cout, n) in enumerate(setting):
        for j in range(n):
            with b.scope(f"stage{i}.{j}"):
                x = _cnblock(b, x)
        if cout is not None:
            with b.scope(f"downsample{i}"):
                x = b.conv(_layernorm2d(b, x), cout, 2, 2, pad=0)
    x = _layernorm2d(b, b.global_avgpool(x))
    b.output(b.linear(b.flatten(x), 1000))
    return b


# -- ShuffleNet V2 ----------------------------------------------------------------------


def _channel_shuffle(b, x, groups=2):
    n, c, h, w = b.shape(x)
    x = b.reshape(x, [n, groups, c // groups, h, w])
    x = b.transpose(x, (0, 2, 1, 3, 4))
    return b.reshape(x, [n, -1, h, w])


def _shuffle_unit(b, x, oup, stride):
    inp = b.shape(x)[1]
    bf = oup // 2
    if stride == 1:
        x1, x2 = b.split(x, [inp // 2, inp // 2])  # x.chunk(2, dim=1)
    else:
        x1 = b.conv_bn(x, inp, 3, stride, groups=inp)
        x1 = b.conv_bn(x1, bf, 1, pad=0, act="relu")
        x2 = x
    y = b.conv_bn(x2, bf, 1, pad=0, act="relu")
    y = b.conv_bn(y, bf, 3, stride, groups=bf)
    y = b.conv_bn(y, bf, 1, pad=0, act="relu")
    return _channel_shuffle(b, b.concat([x1, y]))


def shufflenet_v2(name, seed, repeats=(4, 8, 4), channels=(24, 48, 96, 192, 1024)):
    b, x = _start(name, seed)
    x = b.conv_bn(x, channels[0], 3, 2, pad=1, act="relu")
    x = b.maxpool(x, 3, 2, 1)
    for i, (n, c) in enumerate(zip(repeats, channels[1:4])):
        for j in range(n):
            with b.scope(f"stage{i + 2}.{j}"):
                x = _shuffle_unit(b, x, c, 2 if j == 0 else 1)
    x = b.conv_bn(x, channels[-1], 1, pad=0, act="relu")
    x = b.reduce_mean(x, [2, 3], keepdims=False)  # x.mean([2, 3])
    b.output(b.linear(x, 1000))
    return b


MODELS = {
    "densenet121": lambda seed: densenet("densenet121", seed),
    "googlenet": lambda seed: googlenet("googlenet", seed),
    "inception_v3": lambda seed: inception_v3("inception_v3", seed),
    "squeezenet1_1": lambda seed: squeezenet1_1("squeezenet1_1", seed),
    "regnet": lambda seed: regnet("regnet", seed),
    "convnext_tiny": lambda seed: convnext("convnext_tiny", seed),
    "shufflenet_v2": lambda seed: shufflenet_v2("shufflenet_v2", seed),
}
