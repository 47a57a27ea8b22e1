"""Semantic segmentation networks of AI Hub Models, as their model.py builds them:

deeplabv3_plus_mobilenet  jfzhang95/pytorch-deeplab-xception@9135e10 (modeling/deeplab.py,
    modeling/backbone/mobilenet.py, modeling/aspp.py, modeling/decoder.py): DeepLab(backbone=
    "mobilenet", num_classes=21) with its default output_stride 16 (AI Hub's model.py does not
    set it); each inverted residual pads its input with F.pad (fixed_padding) before the block,
    so the 1x1 expansion runs on the padded map and the depthwise conv has no padding of its own.
deeplabv3_resnet50        pytorch/vision torchvision/models/segmentation/deeplabv3.py and
    _utils.py: ResNet-50 with replace_stride_with_dilation [False, True, True], DeepLabHead
    (ASPP rates 12, 24, 36); AI Hub returns only "out", so the aux FCNHead is not in the graph
    nor in the count (39.6M).
fcn_resnet50              torchvision/models/segmentation/fcn.py: the same dilated ResNet-50 and
    FCNHead(2048, 21); AI Hub sets aux_classifier = None (33.0M).
ffnet_40s                 Qualcomm-AI-research/FFNet (models/ffnet_S_mobile.py
    segmentation_ffnet40S_dBBB_mobile, models/resnet.py Resnet40S_D, models/ffnet_blocks.py):
    ResNetS stem, BasicBlocks [4, 5, 6, 4] with strides [2, 2, 2, 2], the B_mobile up-head
    (nearest upsampling) and SegmentationHead_NoSigmoid_3x3, 19 classes, output at 1/8.
unet_segmentation         milesial/Pytorch-UNet (hubconf.py unet_carvana, unet/unet_model.py,
    unet/unet_parts.py): UNet(3, 2, bilinear=False), ConvTranspose2d upsampling (31.0M).

Input sizes are those AI Hub exports and measures (model.py's get_input_spec), where
architectures.tsv gives info.yaml's instead ("224x224 (per info.yaml)"): fcn_resnet50 at
520x520 and unet_segmentation at 640x1280 (height x width).

As in resnet.py, the graphs are the networks alone: AI Hub's wrappers' input normalisation
(normalize_image_torchvision) and output argmax are left out; the outputs are the logits.
UNet's Up pads x1 by the size difference, which is zero at 640x1280; that no-op Pad is left out.
"""

import numpy as np

from aihub.builder import Builder
from aihub.resnet import trunk


def _pad(b, x, top, left, bottom, right):
    """F.pad(x, (left, right, top, bottom)) as the exporter writes it (constant 0)."""
    n, c, h, w = b.shape(x)
    pads = b.ints([0, 0, top, left, 0, 0, bottom, right])
    value = b.const(np.float32(0.0), base="pad_value")
    return b.node("Pad", [x, pads, value], [[n, c, h + top + bottom, w + left + right]], mode="constant")


# -- DeepLabV3+ with MobileNetV2 (jfzhang95/pytorch-deeplab-xception) --------------------------


def _inverted_residual(b, x, oup, stride, dilation, t):
    inp = b.shape(x)[1]
    hidden = int(round(inp * t))
    xp = _pad(b, x, dilation, dilation, dilation, dilation)  # fixed_padding(x, 3, dilation)
    y = xp
    if t != 1:
        y = b.conv_bn(y, hidden, 1, pad=0, act="relu6")
    y = b.conv_bn(y, hidden, 3, stride, pad=0, groups=hidden, dilation=dilation, act="relu6")
    y = b.conv_bn(y, oup, 1, pad=0)
    if stride == 1 and inp == oup:
        y = b.add(x, y)
    return y


def _mobilenet_v2(b, x, output_stride=16):
    """MobileNetV2 of modeling/backbone/mobilenet.py; returns (high, low-level) features."""
    settings = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
                (6, 160, 3, 2), (6, 320, 1, 1)]
    with b.scope("backbone.features.0"):
        x = b.conv_bn(x, 32, 3, 2, pad=1, act="relu6")
    current, rate, index, low = 2, 1, 1, None
    for t, c, n, s in settings:
        if current == output_stride:
            stride, dilation = 1, rate
            rate *= s
        else:
            stride, dilation = s, 1
            current *= s
        for i in range(n):
            with b.scope(f"backbone.features.{index}"):
                x = _inverted_residual(b, x, c, stride if i == 0 else 1, dilation, t)
            index += 1
            if index == 4:  # low_level_features = features[0:4]
                low = x
    return x, low


def _deeplab_aspp(b, x, rates, align_corners):
    """ASPP of both DeepLab sources: 1x1, three dilated 3x3, image pooling, 1x1 projection."""
    h, w = b.shape(x)[2:]
    branches = [b.conv_bn(x, 256, 1, pad=0, act="relu")]
    for r in rates:
        branches.append(b.conv_bn(x, 256, 3, pad=r, dilation=r, act="relu"))
    p = b.conv_bn(b.global_avgpool(x), 256, 1, pad=0, act="relu")
    branches.append(b.resize(p, size=(h, w), mode="bilinear", align_corners=align_corners))
    return b.conv_bn(b.concat(branches), 256, 1, pad=0, act="relu")


def deeplabv3_plus_mobilenet(seed, size=513, classes=21):
    b = Builder("deeplabv3_plus_mobilenet", seed)
    img = b.input("image", [1, 3, size, size])
    x, low = _mobilenet_v2(b, img, output_stride=16)
    with b.scope("aspp"):
        x = _deeplab_aspp(b, x, (6, 12, 18), align_corners=True)
    with b.scope("decoder"):
        low = b.conv_bn(low, 48, 1, pad=0, act="relu")
        x = b.resize(x, size=b.shape(low)[2:], mode="bilinear", align_corners=True)
        x = b.concat([x, low])
        x = b.conv_bn(x, 256, 3, pad=1, act="relu")
        x = b.conv_bn(x, 256, 3, pad=1, act="relu")
        x = b.conv(x, classes, 1, pad=0)
    b.output(b.resize(x, size=(size, size), mode="bilinear", align_corners=True))
    return b


# -- torchvision DeepLabV3 and FCN on the dilated ResNet-50 ------------------------------------


def _torchvision_segmentation(name, seed, head, size, classes=21):
    b = Builder(name, seed)
    img = b.input("image", [1, 3, size, size])
    with b.scope("backbone"):
        x = trunk(b, img, "bottleneck", (3, 4, 6, 3), dilate=(False, True, True))[-1]
    with b.scope("classifier"):
        if head == "deeplabv3":
            x = _deeplab_aspp(b, x, (12, 24, 36), align_corners=False)
            x = b.conv_bn(x, 256, 3, pad=1, act="relu")
            x = b.conv(x, classes, 1, pad=0)
        else:  # FCNHead(2048, classes)
            x = b.conv_bn(x, 512, 3, pad=1, act="relu")
            x = b.conv(x, classes, 1, pad=0)
    b.output(b.resize(x, size=(size, size), mode="bilinear", align_corners=False))
    return b


# -- FFNet-40S dBBB mobile (Qualcomm-AI-research/FFNet) ------------------------------------------


def _ffnet_basic(b, x, out, stride):
    y = b.conv_bn(x, out, 3, stride, pad=1, act="relu")
    y = b.conv_bn(y, out, 3, 1, pad=1, residual=True)
    short = b.conv_bn(x, out, 1, stride, pad=0) if (b.shape(x)[1] != out or stride != 1) else x
    return b.relu(b.add(short, y))


def _nearest_to(b, x, like):
    return b.resize(x, size=b.shape(like)[2:], mode="nearest")


def ffnet_40s(seed, height=1024, width=2048, classes=19):
    b = Builder("ffnet_40s", seed)
    x = b.input("image", [1, 3, height, width])
    with b.scope("backbone_model"):
        x = b.conv_bn(x, 32, 3, 2, pad=1, act="relu")
        x = b.conv_bn(x, 64, 3, 2, pad=1, act="relu")
        feats = []
        for i, (chans, n) in enumerate(zip((64, 128, 192, 320), (4, 5, 6, 4))):
            for j in range(n):
                with b.scope(f"layer{i + 1}.{j}"):
                    x = _ffnet_basic(b, x, chans, 2 if j == 0 else 1)
            feats.append(x)
    with b.scope("head"):
        f4, f8, f16, f32 = [b.conv_bn(f, c, 1, pad=0, act="relu")
                            for f, c in zip(feats, (64, 128, 128, 256))]  # AdapterConv
        sm32 = b.conv_bn(f32, 32, 3, pad=1, act="relu")
        up32 = b.conv_bn(f32, 128, 1, pad=0, act="relu")
        x = b.add(_nearest_to(b, up32, f16), f16)
        sm16 = b.conv_bn(x, 64, 3, pad=1, act="relu")
        up16 = b.conv_bn(x, 128, 1, pad=0, act="relu")
        x = b.add(_nearest_to(b, up16, f8), f8)
        sm8 = b.conv_bn(x, 96, 3, pad=1, act="relu")
        up8 = b.conv_bn(x, 64, 1, pad=0, act="relu")
        sm4 = b.conv_bn(b.add(_nearest_to(b, up8, f4), f4), 96, 3, pad=1, act="relu")
        x = sm4
        for t in (sm8, sm16, sm32):  # UpsampleCat, one Concat per map as the loop does
            x = b.concat([x, _nearest_to(b, t, sm4)])
        x = b.relu(b.batchnorm(b.conv(x, 256, 3, pad=1)))  # SegmentationHead_NoSigmoid_3x3
        x = b.conv(x, classes, 3, pad=1)
    b.output(x)
    return b


# -- UNet (milesial/Pytorch-UNet) ------------------------------------------------------------------


def _double_conv(b, x, out, mid=None):
    x = b.conv_bn(x, mid or out, 3, pad=1, act="relu")
    return b.conv_bn(x, out, 3, pad=1, act="relu")


def unet_segmentation(seed, height=640, width=1280, classes=2):
    b = Builder("unet_segmentation", seed)
    x = b.input("image", [1, 3, height, width])
    with b.scope("inc"):
        skips = [_double_conv(b, x, 64)]
    for i, c in enumerate((128, 256, 512, 1024)):
        with b.scope(f"down{i + 1}"):
            skips.append(_double_conv(b, b.maxpool(skips[-1], 2, 2), c))
    x = skips.pop()
    for i, c in enumerate((512, 256, 128, 64)):
        with b.scope(f"up{i + 1}"):
            up = b.conv_transpose(x, b.shape(x)[1] // 2, 2, stride=2)
            x = _double_conv(b, b.concat([skips.pop(), up]), c)
    with b.scope("outc"):
        b.output(b.conv(x, classes, 1, pad=0))
    return b


MODELS = {
    "deeplabv3_plus_mobilenet": deeplabv3_plus_mobilenet,
    "deeplabv3_resnet50": lambda seed: _torchvision_segmentation("deeplabv3_resnet50", seed, "deeplabv3",
                                                                 513),
    "fcn_resnet50": lambda seed: _torchvision_segmentation("fcn_resnet50", seed, "fcn", 520),
    "ffnet_40s": ffnet_40s,
    "unet_segmentation": unet_segmentation,
}
