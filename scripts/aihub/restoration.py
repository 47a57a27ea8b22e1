"""Super-resolution networks of AI Hub Models, as their model.py builds them (128x128 input):

esrgan              xinntao/ESRGAN@73e9b63 RRDBNet_arch.py: RRDBNet(3, 3, 64, 23, gc=32), 23 RRDBs of
    three 5-conv residual dense blocks (LeakyReLU 0.2, residual scale 0.2), two x2 nearest
    upsamplings each followed by a 3x3 conv, HRconv, conv_last (16.7M).
real_esrgan_x4plus  the same network as basicsr's RRDBNet (qai_hub_models/extern/basicsr/archs/
    rrdbnet_arch.py, scale 4: no pixel-unshuffle), and AI Hub's forward clamps to [0, 1] (Clip).
quicksrnetsmall     quic/aimet-model-zoo aimet_zoo_torch/quicksrnet/model/models.py QuickSRNetBase
    (32 channels, 2 intermediate convs, no input-to-output connection, Hardtanh(0, 1) = Clip).
xlsr                aimet_zoo_torch/common/super_resolution/models.py XLSRRelease (GBlocks of a
    4-group 3x3 conv and a 1x1 conv, clipped-ReLU output).
sesr_m5             the same file's SESRRelease(num_channels=16, num_lblocks=5) in its training form:
    AI Hub's model.py loads the checkpoint into it and never calls collapse(), so every
    CollapsibleLinearBlock is a kxk conv to 256 channels (no bias) and a 1x1 conv back, and the
    AnchorOp 1x1 conv (frozen, nearest-upsampling weights; still in model.parameters()) is kept.

Scale: AI Hub's from_pretrained defaults to DEFAULT_SCALE_FACTOR = 4 (qai_hub_models/models/
_shared/super_resolution/model.py) and the table's counts are the 4x ones (QuickSRNetSmall 33,264,
XLSR 28,016, SESR-M5 343,120; at 3x they would be 27,195, 21,947 and 337,639), so the three
aimet-model-zoo networks are built at 4x although info.yaml names the 3x checkpoints.
PixelShuffle is DepthToSpace mode CRD, as torch.onnx.export writes it.
"""

import numpy as np

from aihub.builder import Builder


# -- RRDBNet (ESRGAN, Real-ESRGAN x4plus) -----------------------------------------------------------


# The reference implementations' initialization, so that activations stay
# near 1 as trained weights keep them (He's init through 23 blocks grows
# them to hundreds, where float32 reassociation alone fails --verify's
# tolerance): basicsr's default_init_weights scales the dense blocks' Kaiming
# weights by 0.1 (std x 0.1: gain 2 x 0.01), and PyTorch's default Conv2d
# init (Kaiming uniform, a = sqrt(5)) has variance 1 / (3 fan_in).
RDB_GAIN = 0.02
TORCH_GAIN = 1.0 / 3


def _rdb(b, x, gc=32):
    feats = [x]
    for i in range(4):
        with b.scope(f"conv{i + 1}"):
            inp = feats[0] if len(feats) == 1 else b.concat(feats)
            feats.append(b.leaky_relu(b.conv(inp, gc, 3, pad=1, gain=RDB_GAIN), 0.2))
    with b.scope("conv5"):
        y = b.conv(b.concat(feats), b.shape(x)[1], 3, pad=1, gain=RDB_GAIN)
    return b.add(b.mul(y, 0.2), x)


def rrdbnet(name, seed, size=128, nf=64, nb=23, gc=32, clamp=False):
    b = Builder(name, seed)
    x = b.input("image", [1, 3, size, size])
    fea = b.conv(x, nf, 3, pad=1, gain=TORCH_GAIN)
    t = fea
    for i in range(nb):
        with b.scope(f"RRDB_trunk.{i}"):
            y = t
            for j in range(3):
                with b.scope(f"RDB{j + 1}"):
                    y = _rdb(b, y, gc)
            t = b.add(b.mul(y, 0.2), t)
    fea = b.add(fea, b.conv(t, nf, 3, pad=1, gain=TORCH_GAIN))
    for _ in (1, 2):
        fea = b.leaky_relu(b.conv(b.resize(fea, scale=2, mode="nearest"), nf, 3, pad=1, gain=TORCH_GAIN),
                           0.2)
    out = b.conv(b.leaky_relu(b.conv(fea, nf, 3, pad=1, gain=TORCH_GAIN), 0.2), 3, 3, pad=1,
                 gain=TORCH_GAIN)
    if clamp:
        out = b.clip(out, 0.0, 1.0)
    b.output(out)
    return b


# -- aimet-model-zoo super-resolution networks ----------------------------------------------------


def _depth_to_space(b, x, s):
    n, c, h, w = b.shape(x)
    return b.node("DepthToSpace", [x], [[n, c // (s * s), h * s, w * s]], blocksize=s, mode="CRD")


def _anchor(b, x, s):
    """AnchorOp: a 1x1 conv whose frozen weights repeat each channel s*s times."""
    c = b.shape(x)[1]
    w = np.zeros((c * s * s, c, 1, 1), np.float32)
    for i in range(c):
        w[i * s * s:(i + 1) * s * s, i] = 1.0
    n, _, h, wd = b.shape(x)
    return b.node("Conv", [x, b.param("anchor.weight", w), b.param("anchor.bias", np.zeros(c * s * s))],
                  [[n, c * s * s, h, wd]], kernel_shape=[1, 1], strides=[1, 1], pads=[0, 0, 0, 0],
                  dilations=[1, 1], group=1)


def quicksrnet_small(seed, size=128, scale=4, channels=32, layers=2):
    b = Builder("quicksrnetsmall", seed)
    x = b.input("image", [1, 3, size, size])
    with b.scope("cnn"):
        y = b.clip(b.conv(x, channels, 3, pad=1), 0.0, 1.0)
        for _ in range(layers):
            y = b.clip(b.conv(y, channels, 3, pad=1), 0.0, 1.0)
    y = b.clip(b.conv(y, 3 * scale * scale, 3, pad=1), 0.0, 1.0)
    b.output(_depth_to_space(b, y, scale))
    return b


def xlsr(seed, size=128, scale=4):
    b = Builder("xlsr", seed)
    x = b.input("image", [1, 3, size, size])
    res = b.conv(x, 16, 3, pad=1)
    with b.scope("cnn"):
        y = b.conv(b.relu(b.conv(x, 32, 3, pad=1)), 32, 1, pad=0)
        for i in range(3):
            with b.scope(f"gblock{i}"):
                y = b.conv(b.relu(b.conv(y, 32, 3, pad=1, groups=4)), 32, 1, pad=0)
    y = b.concat([y, res])
    with b.scope("tail"):
        y = b.conv(b.relu(b.conv(y, 32, 1, pad=0)), 3 * scale * scale, 3, pad=1)
    b.output(b.clip(_depth_to_space(b, y, scale), 0.0, 1.0))
    return b


def _clb(b, x, out, k, tmp=256):
    """CollapsibleLinearBlock before collapse(): conv kxk to tmp (no bias), conv 1x1 to out."""
    return b.conv(b.conv(x, tmp, k, bias=False), out, 1, pad=0)


def sesr(name, seed, size=128, scale=4, channels=16, lblocks=5):
    b = Builder(name, seed)
    x = b.input("image", [1, 3, size, size])
    up = _anchor(b, x, scale)
    with b.scope("conv_first"):
        init = b.relu(_clb(b, x, channels, 5))
    y = init
    for i in range(lblocks):
        with b.scope(f"residual_block.{i}"):
            y = b.relu(b.add(y, _clb(b, y, channels, 3)))
    y = b.add(y, init)
    with b.scope("conv_last"):
        y = _clb(b, y, 3 * scale * scale, 5)
    b.output(_depth_to_space(b, b.add(y, up), scale))
    return b


MODELS = {
    "esrgan": lambda seed: rrdbnet("esrgan", seed),
    "real_esrgan_x4plus": lambda seed: rrdbnet("real_esrgan_x4plus", seed, clamp=True),
    "quicksrnetsmall": quicksrnet_small,
    "sesr_m5": lambda seed: sesr("sesr_m5", seed),
    "xlsr": xlsr,
}
