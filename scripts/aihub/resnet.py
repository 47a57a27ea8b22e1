"""torchvision's ResNet family (torchvision/models/resnet.py): resnet18, resnet50,
resnet101, resnext50_32x4d, resnext101_32x8d and wide_resnet50_2, with the
1000-class head, as in AI Hub Models' resnet*, resnext* and wideresnet50.
trunk() is the backbone the segmentation and detection builders reuse
(replace_stride_with_dilation as torchvision's segmentation models set it)."""

from aihub.builder import Builder


def _basic(b, x, planes, stride, downsample, dilation):
    y = b.conv_bn(x, planes, 3, stride, dilation=dilation, act="relu")
    y = b.conv_bn(y, planes, 3, 1, dilation=dilation, residual=True)
    idn = b.conv_bn(x, planes, 1, stride, pad=0) if downsample else x
    return b.relu(b.add(y, idn))


def _bottleneck(b, x, planes, stride, downsample, groups, base_width, dilation):
    width = int(planes * (base_width / 64.0)) * groups
    y = b.conv_bn(x, width, 1, 1, pad=0, act="relu")
    y = b.conv_bn(y, width, 3, stride, groups=groups, dilation=dilation, act="relu")
    y = b.conv_bn(y, planes * 4, 1, 1, pad=0, residual=True)
    idn = b.conv_bn(x, planes * 4, 1, stride, pad=0) if downsample else x
    return b.relu(b.add(y, idn))


def trunk(b, x, block, layers, groups=1, base_width=64, dilate=(False, False, False)):
    """The ResNet stem and four stages on tensor x of builder b, as
    torchvision's _make_layer builds them; returns [c2, c3, c4, c5]."""
    x = b.relu(b.conv_bn(x, 64, 7, 2, pad=3))
    x = b.maxpool(x, 3, 2, 1)
    expansion = 1 if block == "basic" else 4
    inplanes, dilation = 64, 1
    feats = []
    for i, (planes, n) in enumerate(zip((64, 128, 256, 512), layers)):
        stride = 1 if i == 0 else 2
        previous = dilation
        if i > 0 and dilate[i - 1]:
            dilation *= stride
            stride = 1
        for j in range(n):
            with b.scope(f"layer{i + 1}.{j}"):
                s = stride if j == 0 else 1
                d = previous if j == 0 else dilation
                down = j == 0 and (s != 1 or inplanes != planes * expansion)
                if block == "basic":
                    x = _basic(b, x, planes, s, down, d)
                else:
                    x = _bottleneck(b, x, planes, s, down, groups, base_width, d)
                inplanes = planes * expansion
        feats.append(x)
    return feats


def resnet(name, seed, block, layers, groups=1, base_width=64, size=224, classes=1000):
    b = Builder(name, seed)
    x = b.input("image", [1, 3, size, size])
    x = trunk(b, x, block, layers, groups, base_width)[-1]
    x = b.flatten(b.global_avgpool(x))
    b.output(b.linear(x, classes))
    return b


MODELS = {
    "resnet18": lambda seed: resnet("resnet18", seed, "basic", (2, 2, 2, 2)),
    "resnet50": lambda seed: resnet("resnet50", seed, "bottleneck", (3, 4, 6, 3)),
    "resnet101": lambda seed: resnet("resnet101", seed, "bottleneck", (3, 4, 23, 3)),
    "resnext50": lambda seed: resnet("resnext50", seed, "bottleneck", (3, 4, 6, 3), groups=32, base_width=4),
    "resnext101": lambda seed: resnet("resnext101", seed, "bottleneck", (3, 4, 23, 3), groups=32,
                                      base_width=8),
    "wideresnet50": lambda seed: resnet("wideresnet50", seed, "bottleneck", (3, 4, 6, 3), base_width=128),
}
