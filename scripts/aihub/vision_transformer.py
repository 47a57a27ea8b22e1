"""Vision transformers of AI Hub Models, with 1000-class heads:

vit         torchvision ViT-B/16 (pytorch/vision torchvision/models/vision_transformer.py, vit_b_16),
            attention as torch.onnx.export writes nn.MultiheadAttention(batch_first=True,
            need_weights=False): packed in-projection, Gather of q/k/v, scaled_dot_product_attention.
swin_tiny, swin_small, swin_base
            torchvision swin_t/s/b (torchvision/models/swin_transformer.py, V1: PatchMerging,
            relative position bias) with the inference rewrite AI Hub Models applies
            (quic/ai-hub-models qai_hub_models/models/_shared/swin/swin_transformer.py:
            ShiftedWindowAttentionInf with rank-5 window views and q/k/v split into three linears,
            split_linear for linears wider than 512 channels, AutoSplitLinear in PatchMerging).
beit        HF transformers BeitForImageClassification, microsoft/beit-base-patch16-224
            (transformers/models/beit/modeling_beit.py), as qai_hub_models/models/beit/model.py loads it.
levit       HF transformers LevitForImageClassification, facebook/levit-128S
            (transformers/models/levit/modeling_levit.py), as qai_hub_models/models/levit/model.py.
mobile_vit  HF transformers MobileViTForImageClassification, apple/mobilevit-small
            (transformers/models/mobilevit/modeling_mobilevit.py), as qai_hub_models/models/mobile_vit.

Parameter counts follow how the table (AI Hub's info.yaml) counts them: the initializers of the
exported, constant-folded graph. Where a gather of a learned table by static indices is folded
by the exporter (Swin's and BEiT's relative position bias, LeViT's attention biases) the folded
bias is what is counted (the table itself does not reach the graph), and identical folded
constants (Swin's shift masks within a stage) are counted once, as the exporter deduplicates them.
The input normalization of AI Hub's ImagenetClassifier wrapper is left out, as in resnet.py.
"""

import math

import numpy as np

from aihub.builder import Builder


def _gather(b, x, index, axis):
    """x[index] along axis with a scalar index (the axis vanishes)."""
    s = b.shape(x)
    out = s[:axis] + s[axis + 1:]
    return b.node("Gather", [x, b.const(np.array(index, np.int64), np.int64, "index")], [out], axis=axis)


def _param_const(b, base, array):
    """A folded constant that the table counts as parameters (see the docstring)."""
    return b.param(base, array)


# -- ViT ---------------------------------------------------------------------------------------


def _mha_torch(b, x, heads):
    """nn.MultiheadAttention(batch_first=True)(x, x, x, need_weights=False) as exported (opset 17)."""
    n, seq, e = b.shape(x)
    hd = e // heads
    x = b.transpose(x, [1, 0, 2])                                 # (L, N, E)
    w = b.weight("in_proj_weight", [e, 3 * e], e, gain=1.0)       # stored transposed, as exported
    proj = b.add(b.node("MatMul", [x, w], [[seq, n, 3 * e]]), b.bias("in_proj_bias", 3 * e))
    proj = b.reshape(proj, [seq, n, 3, e])
    proj = b.transpose(proj, [2, 0, 1, 3])                        # unsqueeze(0).transpose(0,-2).squeeze(-2)
    q, k, v = (_gather(b, proj, i, 0) for i in range(3))
    q, k, v = (b.transpose(b.reshape(t, [seq, n * heads, hd]), [1, 0, 2]) for t in (q, k, v))
    q, k, v = (b.reshape(t, [n, heads, seq, hd]) for t in (q, k, v))
    s = math.sqrt(1.0 / math.sqrt(hd))
    att = b.matmul(b.mul(q, s), b.mul(b.transpose(k, [0, 1, 3, 2]), s))
    y = b.matmul(b.softmax(att, -1), v)                           # (N, H, L, hd)
    y = b.reshape(b.transpose(y, [2, 0, 1, 3]), [seq * n, e])
    y = b.linear(y, e)                                            # out_proj: Gemm on 2-D
    y = b.reshape(y, [seq, n, e])
    return b.transpose(y, [1, 0, 2])


def vit(name, seed, size=224, patch=16, layers=12, heads=12, hidden=768, mlp=3072, classes=1000):
    b = Builder(name, seed)
    x = b.input("image", [1, 3, size, size])
    x = b.conv(x, hidden, patch, patch, pad=0)                    # conv_proj
    g = size // patch
    x = b.transpose(b.reshape(x, [1, hidden, g * g]), [0, 2, 1])
    cls = b.param("class_token", b.rng("class_token").standard_normal((1, 1, hidden)) * 0.02)
    x = b.concat([cls, x], axis=1)
    pos = b.param("pos_embedding", b.rng("pos_embedding").standard_normal((1, g * g + 1, hidden)) * 0.02)
    x = b.add(x, pos)
    for i in range(layers):
        with b.scope(f"encoder_layer_{i}"):
            y = _mha_torch(b, b.layernorm(x, 1e-6), heads)
            x = b.add(y, x)
            y = b.layernorm(x, 1e-6)
            y = b.linear(b.gelu(b.linear(y, mlp)), hidden)
            x = b.add(x, y)
    x = b.layernorm(x, 1e-6)
    x = _gather(b, x, 0, 1)
    b.output(b.linear(x, classes))
    return b


# -- Swin (AI Hub's ShiftedWindowAttentionInf) ---------------------------------------------------


def _roll(b, x, shifts, dims):
    """torch.roll(x, shifts, dims) as exported: per dimension, Slice [-s:] and [:-s], Concat."""
    for s, d in zip(shifts, dims):
        x = b.concat([b.slice(x, d, -s, 2 ** 63 - 1), b.slice(x, d, 0, -s)], axis=d)
    return x


def _linear_nobias(b, x, w_t):
    s = b.shape(x)
    return b.node("MatMul", [x, w_t], [s[:-1] + [b.shape(w_t)[1]]])


def _split_linear(b, x, out, bias=True, max_channel=512):
    """AI Hub's split_linear: output chunks of <= 512 channels, each a sum of input chunks."""
    k = b.shape(x)[-1]
    n_out = -(-out // max_channel)
    n_in = -(-k // max_channel)
    if n_out == 1 and n_in == 1:
        return b.linear(x, out, bias)
    xs = b.split(x, [k // n_in] * n_in, axis=-1) if n_in > 1 else [x]
    outs = []
    for _ in range(n_out):
        o = out // n_out
        if n_in == 1:
            outs.append(b.linear(x, o, bias))
            continue
        acc = None
        for xc in xs:
            w = b.weight("linear.weight", [k // n_in, o], k, gain=1.0)
            y = _linear_nobias(b, xc, w)
            acc = b.add(y, 0.0) if acc is None else b.add(acc, y)  # python sum() starts at 0
        if bias:
            acc = b.add(acc, b.bias("linear.bias", o))
        outs.append(acc)
    return outs[0] if n_out == 1 else b.concat(outs, axis=-1)


def _relative_position_index(ws):
    coords = np.stack(np.meshgrid(np.arange(ws), np.arange(ws), indexing="ij")).reshape(2, -1)
    rel = (coords[:, :, None] - coords[:, None, :]).transpose(1, 2, 0)
    rel[:, :, 0] += ws - 1
    rel[:, :, 1] += ws - 1
    rel[:, :, 0] *= 2 * ws - 1
    return rel.sum(-1).reshape(-1)


def _shift_mask(h, w, ws, shift):
    m = np.zeros((h, w), np.float32)
    cnt = 0
    for hs in ((0, -ws), (-ws, -shift), (-shift, None)):
        for wsl in ((0, -ws), (-ws, -shift), (-shift, None)):
            m[hs[0]:hs[1], wsl[0]:wsl[1]] = cnt
            cnt += 1
    m = m.reshape(h // ws, ws, w // ws, ws).transpose(0, 2, 1, 3).reshape(-1, ws * ws)
    d = m[:, None, :] - m[:, :, None]
    d = np.where(d != 0, -100.0, 0.0).astype(np.float32)
    return d.reshape(d.shape[0], -1)[None, :, None, :]           # (1, nW, 1, ws*ws*ws*ws)


def _swin_attention(b, x, heads, ws, shift, masks):
    _, h, w, c = b.shape(x)
    if ws >= h:
        shift = 0
    if shift:
        x = _roll(b, x, [-shift, -shift], [1, 2])
    nw = (h // ws) * (w // ws)
    x = b.reshape(x, [h // ws, ws, w // ws, ws * c])
    x = b.reshape(b.transpose(x, [0, 2, 1, 3]), [nw, ws * ws, c])
    hd = c // heads
    q, k, v = (_split_linear(b, x, c) for _ in range(3))
    q, k, v = (b.transpose(b.reshape(t, [nw, ws * ws, heads, hd]), [0, 2, 1, 3]) for t in (q, k, v))
    q = b.mul(q, hd ** -0.5)
    att = b.matmul(q, b.transpose(k, [0, 1, 3, 2]))
    table = b.rng(b.fresh("rpb_table")).standard_normal(((2 * ws - 1) ** 2, heads)) * 0.02
    bias = table[_relative_position_index(ws)].reshape(ws * ws, ws * ws, heads).transpose(2, 0, 1)[None]
    att = b.add(att, _param_const(b, "relative_position_bias", bias))
    if shift:
        key = (h, w)
        if key not in masks:
            masks[key] = _param_const(b, "attn_mask", _shift_mask(h, w, ws, shift))
        att = b.reshape(att, [1, nw, heads, ws ** 4])
        att = b.add(att, masks[key])
        att = b.reshape(att, [nw, heads, ws * ws, ws * ws])
    att = b.softmax(att, -1)
    y = b.transpose(b.matmul(att, v), [0, 2, 1, 3])
    y = b.reshape(y, [nw, ws * ws, c])
    y = b.linear(y, c)                                            # proj
    y = b.reshape(y, [h // ws, w // ws, ws, ws * c])
    y = b.reshape(b.transpose(y, [0, 2, 1, 3]), [1, h, w, c])
    if shift:
        y = _roll(b, y, [shift, shift], [1, 2])
    return y


def _patch_merging(b, x):
    _, h, w, c = b.shape(x)
    parts = []
    for hs, wsl in ((0, 0), (1, 0), (0, 1), (1, 1)):
        parts.append(b.slice(b.slice(x, 1, hs, 2 ** 63 - 1, 2), 2, wsl, 2 ** 63 - 1, 2))
    x = b.layernorm(b.concat(parts, axis=-1))
    return _split_linear(b, x, 2 * c, bias=False)


def swin(name, seed, embed, depths, heads, size=224, ws=7, classes=1000):
    b = Builder(name, seed)
    x = b.input("image", [1, 3, size, size])
    x = b.conv(x, embed, 4, 4, pad=0)
    x = b.layernorm(b.transpose(x, [0, 2, 3, 1]))
    masks = {}
    dim = embed
    for i, (depth, nh) in enumerate(zip(depths, heads)):
        for j in range(depth):
            with b.scope(f"features.{2 * i + 1}.{j}"):
                y = _swin_attention(b, b.layernorm(x), nh, ws, 0 if j % 2 == 0 else ws // 2, masks)
                x = b.add(x, y)
                y = b.linear(b.gelu(b.linear(b.layernorm(x), 4 * dim)), dim)
                x = b.add(x, y)
        if i < len(depths) - 1:
            with b.scope(f"features.{2 * i + 2}"):
                x = _patch_merging(b, x)
            dim *= 2
    x = b.transpose(b.layernorm(x), [0, 3, 1, 2])
    x = b.flatten(b.global_avgpool(x))
    b.output(b.linear(x, classes))
    return b


# -- BEiT (HF BeitForImageClassification, SDPA attention) ------------------------------------------


def _beit_bias(b, ws, heads):
    """The relative position bias of one layer, [1, heads, N, N] (folded by the exporter)."""
    n = ws * ws
    num = (2 * ws - 1) ** 2 + 3
    index = np.zeros((n + 1, n + 1), np.int64)
    index[1:, 1:] = _relative_position_index(ws).reshape(n, n)
    index[0, :] = num - 3
    index[:, 0] = num - 2
    index[0, 0] = num - 1
    table = b.rng(b.fresh("relative_position_bias_table")).standard_normal((num, heads)) * 0.02
    bias = table[index.reshape(-1)].reshape(n + 1, n + 1, heads).transpose(2, 0, 1)[None]
    return _param_const(b, "relative_position_bias", bias)


def _sdpa(b, q, k, v, mask=None):
    """F.scaled_dot_product_attention as exported at opset 14+: sqrt(scale) on q and on k^T."""
    s = math.sqrt(1.0 / math.sqrt(b.shape(q)[-1]))
    att = b.matmul(b.mul(q, s), b.mul(b.transpose(k, [0, 1, 3, 2]), s))
    if mask is not None:
        att = b.add(att, mask)
    return b.matmul(b.softmax(att, -1), v)


def beit(name, seed, size=224, patch=16, layers=12, heads=12, hidden=768, mlp=3072, classes=1000, eps=1e-12):
    b = Builder(name, seed)
    x = b.input("image", [1, 3, size, size])
    x = b.conv(x, hidden, patch, patch, pad=0)
    g = size // patch
    n = g * g + 1
    x = b.transpose(b.reshape(x, [1, hidden, g * g]), [0, 2, 1])
    cls = b.param("cls_token", b.rng("cls_token").standard_normal((1, 1, hidden)) * 0.02)
    x = b.concat([cls, x], axis=1)
    hd = hidden // heads
    for i in range(layers):
        with b.scope(f"layer.{i}"):
            h = b.layernorm(x, eps)
            q = b.linear(h, hidden)
            k = b.linear(h, hidden, bias=False)
            v = b.linear(h, hidden)
            q, k, v = (b.transpose(b.reshape(t, [1, n, heads, hd]), [0, 2, 1, 3]) for t in (q, k, v))
            y = _sdpa(b, q, k, v, _beit_bias(b, g, heads))
            y = b.reshape(b.transpose(y, [0, 2, 1, 3]), [1, n, hidden])
            y = b.linear(y, hidden)
            lam1 = b.param("lambda_1", np.full(hidden, 0.1))
            x = b.add(b.mul(lam1, y), x)
            y = b.linear(b.gelu(b.linear(b.layernorm(x, eps), mlp)), hidden)
            lam2 = b.param("lambda_2", np.full(hidden, 0.1))
            x = b.add(b.mul(lam2, y), x)
    x = b.slice(x, 1, 1, 2 ** 63 - 1)                            # patch tokens
    x = b.layernorm(b.reduce_mean(x, [1], keepdims=False), eps)  # BeitPooler (mean pooling)
    b.output(b.linear(x, classes))
    return b


# -- LeViT (HF LevitForImageClassification, LeViT-128S) -------------------------------------------


def _levit_bias(b, heads, res_in, res_out, stride):
    """attention_biases[:, attention_bias_idxs], [heads, res_out^2, res_in^2] (folded by the exporter)."""
    pts_in = [(i, j) for i in range(res_in) for j in range(res_in)]
    pts_out = [(i, j) for i in range(res_out) for j in range(res_out)]
    offsets, idx = {}, []
    for p1 in pts_out:
        for p2 in pts_in:
            off = (abs(p1[0] * stride - p2[0]), abs(p1[1] * stride - p2[1]))
            idx.append(offsets.setdefault(off, len(offsets)))
    table = b.rng(b.fresh("attention_biases")).standard_normal((heads, len(offsets))) * 0.1
    bias = table[:, np.array(idx)].reshape(heads, len(pts_out), len(pts_in))
    return _param_const(b, "attention_bias", bias)


def _linear_bn(b, x, out):
    """MLPLayerWithBN (Linear without bias, BatchNorm1d) with the BatchNorm folded: MatMul + Add.
    Counted as the folded graph holds it: the weight and one bias (the table's convention)."""
    return b.linear(x, out)


def _levit_attention(b, x, heads, kd, ratio, res, out_dim=None, stride=1):
    _, n, c = b.shape(x)
    if stride == 1:
        qkv = _linear_bn(b, x, heads * (2 * kd + ratio * kd))
        qkv = b.reshape(qkv, [1, n, heads, 2 * kd + ratio * kd])
        q, k, v = b.split(qkv, [kd, kd, ratio * kd], axis=3)
        res_out = res
        nq = n
    else:
        kv = _linear_bn(b, x, heads * (kd + ratio * kd))
        kv = b.reshape(kv, [1, n, heads, kd + ratio * kd])
        k, v = b.split(kv, [kd, ratio * kd], axis=3)
        res_out = (res - 1) // stride + 1
        nq = res_out * res_out
        s = b.reshape(x, [1, res, res, c])                      # LevitSubsample
        s = b.slice(b.slice(s, 1, 0, 2 ** 63 - 1, stride), 2, 0, 2 ** 63 - 1, stride)
        q = _linear_bn(b, b.reshape(s, [1, nq, c]), heads * kd)
        q = b.reshape(q, [1, nq, heads, kd])
    q, k, v = (b.transpose(t, [0, 2, 1, 3]) for t in (q, k, v))
    att = b.mul(b.matmul(q, b.transpose(k, [0, 1, 3, 2])), kd ** -0.5)
    att = b.softmax(b.add(att, _levit_bias(b, heads, res, res_out, stride)), -1)
    y = b.reshape(b.transpose(b.matmul(att, v), [0, 2, 1, 3]), [1, nq, heads * ratio * kd])
    return _linear_bn(b, b.hardswish(y), out_dim or c)


def _levit_mlp(b, x, ratio):
    c = b.shape(x)[-1]
    return b.add(x, _linear_bn(b, b.hardswish(_linear_bn(b, x, c * ratio)), c))


def levit(name, seed, size=224, dims=(128, 256, 384), heads=(4, 6, 8), depths=(2, 3, 4), kd=16,
          classes=1000):
    b = Builder(name, seed)
    x = b.input("image", [1, 3, size, size])
    for i, c in enumerate((dims[0] // 8, dims[0] // 4, dims[0] // 2, dims[0])):
        x = b.conv_bn(x, c, 3, 2, pad=1)
        if i < 3:
            x = b.hardswish(x)
    res = size // 16
    x = b.transpose(b.reshape(x, [1, dims[0], res * res]), [0, 2, 1])
    for s, (c, nh, depth) in enumerate(zip(dims, heads, depths)):
        for j in range(depth):
            with b.scope(f"stages.{s}.{j}"):
                x = b.add(x, _levit_attention(b, x, nh, kd, 2, res))
                x = _levit_mlp(b, x, 2)
        if s < len(dims) - 1:  # down_ops: Subsample, kd, C / kd heads, ratio 4, mlp 2, stride 2
            with b.scope(f"stages.{s}.subsample"):
                x = _levit_attention(b, x, c // kd, kd, 4, res, dims[s + 1], stride=2)
                res = (res - 1) // 2 + 1
                x = _levit_mlp(b, x, 2)
    x = b.reduce_mean(x, [1], keepdims=False)
    # LevitClassificationLayer: BatchNorm1d (as its scale and shift) then Linear
    rng = b.rng("classifier.bn")
    x = b.add(b.mul(x, b.param("classifier.bn.scale", rng.uniform(0.5, 1.5, dims[-1]))),
              b.param("classifier.bn.shift", rng.standard_normal(dims[-1]) * 0.1))
    b.output(b.linear(x, classes))
    return b


# -- MobileViT (HF MobileViTForImageClassification, apple/mobilevit-small) --------------------------


def _make_divisible(v, d=8):
    n = max(d, int(v + d / 2) // d * d)
    return n + d if n < 0.9 * v else n


def _mv2(b, x, cout, stride, expand=4.0):
    cin = b.shape(x)[1]
    e = _make_divisible(int(round(cin * expand)))
    y = b.conv_bn(x, e, 1, pad=0, act="silu")
    y = b.conv_bn(y, e, 3, stride, groups=e, act="silu")
    y = b.conv_bn(y, cout, 1, pad=0)
    return b.add(x, y) if stride == 1 and cin == cout else y


def _mvit_block(b, x, cout, hidden, depth, heads=4, patch=2, mlp_ratio=2.0, eps=1e-5):
    x = _mv2(b, x, cout, 2)
    res = x
    y = b.conv_bn(x, cout, 3, act="silu")
    y = b.conv(y, hidden, 1, pad=0, bias=False)
    _, c, h, w = b.shape(y)
    nh, nw = -(-h // patch), -(-w // patch)
    if nh * patch != h or nw * patch != w:
        y = b.resize(y, size=(nh * patch, nw * patch), mode="bilinear")
    pa, n = patch * patch, nh * nw
    # unfolding
    y = b.transpose(b.reshape(y, [c * nh, patch, nw, patch]), [0, 2, 1, 3])
    y = b.transpose(b.reshape(y, [1, c, n, pa]), [0, 3, 2, 1])
    y = b.reshape(y, [pa, n, c])
    hd = c // heads
    for i in range(depth):
        with b.scope(f"transformer.{i}"):
            t = b.layernorm(y, eps)
            q, k, v = (b.transpose(b.reshape(b.linear(t, c), [pa, n, heads, hd]), [0, 2, 1, 3])
                       for _ in range(3))
            att = b.div(b.matmul(q, b.transpose(k, [0, 1, 3, 2])), math.sqrt(hd))
            t = b.reshape(b.transpose(b.matmul(b.softmax(att, -1), v), [0, 2, 1, 3]), [pa, n, c])
            y = b.add(b.linear(t, c), y)
            t = b.silu(b.linear(b.layernorm(y, eps), int(c * mlp_ratio)))
            y = b.add(b.linear(t, c), y)
    y = b.layernorm(y, eps)
    # folding
    y = b.transpose(b.reshape(y, [1, pa, n, c]), [0, 3, 2, 1])
    y = b.transpose(b.reshape(y, [c * nh, nw, patch, patch]), [0, 2, 1, 3])
    y = b.reshape(y, [1, c, nh * patch, nw * patch])
    if nh * patch != h or nw * patch != w:
        y = b.resize(y, size=(h, w), mode="bilinear")
    y = b.conv_bn(y, cout, 1, pad=0, act="silu")
    return b.conv_bn(b.concat([res, y], axis=1), cout, 3, act="silu")


def mobile_vit(name, seed, size=224, neck=(16, 32, 64, 96, 128, 160, 640), hidden=(144, 192, 240),
               classes=1000):
    b = Builder(name, seed)
    x = b.input("image", [1, 3, size, size])
    x = b.conv_bn(x, neck[0], 3, 2, act="silu")
    with b.scope("layer.0"):
        x = _mv2(b, x, neck[1], 1)
    for j in range(3):
        with b.scope(f"layer.1.{j}"):
            x = _mv2(b, x, neck[2], 2 if j == 0 else 1)
    for i, depth in enumerate((2, 4, 3)):
        with b.scope(f"layer.{i + 2}"):
            x = _mvit_block(b, x, neck[3 + i], hidden[i], depth)
    x = b.conv_bn(x, neck[6], 1, pad=0, act="silu")
    x = b.reduce_mean(x, [-2, -1], keepdims=False)
    b.output(b.linear(x, classes))
    return b


MODELS = {
    "vit": lambda seed: vit("vit", seed),
    "swin_tiny": lambda seed: swin("swin_tiny", seed, 96, (2, 2, 6, 2), (3, 6, 12, 24)),
    "swin_small": lambda seed: swin("swin_small", seed, 96, (2, 2, 18, 2), (3, 6, 12, 24)),
    "swin_base": lambda seed: swin("swin_base", seed, 128, (2, 2, 18, 2), (4, 8, 16, 32)),
    "beit": lambda seed: beit("beit", seed),
    "levit": lambda seed: levit("levit", seed),
    "mobile_vit": lambda seed: mobile_vit("mobile_vit", seed),
}
