"""Whisper-tiny (openai/whisper-tiny: d_model 384, 4 encoder and 4 decoder layers, 6 heads, FFN 1536,
80 mel bins, 1500 audio positions, 448 text positions, vocabulary 51865) as AI Hub Models exports it:
HF transformers v4.42.3 whisper (src/transformers/models/whisper/modeling_whisper.py) rewritten by
quic/ai-hub-models qai_hub_models/models/_shared/hf_whisper/model_adaptation.py (SHAAttention: one
1x1 Conv per head for q, k and v with the q scaling folded into its weights; Conv2dLinear: every
Linear a 1x1 Conv on an NCHW view; the Conv1d stem as (1, 3) Conv2d) and wrapped by
qai_hub_models/models/_shared/hf_whisper/model.py (HfWhisperEncoder, HfWhisperDecoder) at commit
1362d5d of that repository.

whisper_tiny/HfWhisperEncoder  input_features [1, 80, 3000] -> the cross-attention caches of the
    four decoder layers (QcWhisperEncoder computes the decoder's cross-attention k/v projections):
    k_cache_cross_i [6, 1, 64, 1500], v_cache_cross_i [6, 1, 1500, 64].
whisper_tiny/HfWhisperDecoder  one token step with a self-attention cache of 199 entries
    (MEAN_DECODE_LEN 200): input_ids [1, 1] int32, attention_mask [1, 1, 1, 200],
    k/v_cache_self_i_in, k/v_cache_cross_i, position_ids [1] int32 -> logits [1, 51865, 1, 1] and
    k/v_cache_self_i_out.

Parameter counts follow the table (the graph's initializers, deduplicated): the encoder counts the
decoder's cross-attention k/v projections it computes; the decoder does not count its unused
cross-attention k/v projections nor proj_out, whose weight is a copy of embed_tokens (same bytes).
"""

import numpy as np

from onnx import TensorProto

from aihub.builder import Builder

D, HEADS, FFN, LAYERS, VOCAB, AUDIO, TEXT_POS, DECODE = 384, 6, 1536, 4, 51865, 1500, 448, 200
HD = D // HEADS


def _conv1x1(b, x, cout, bias=True, scale=1.0):
    """Conv2dLinear / a per-head projection: a 1x1 Conv holding a Linear's weights (std
    sqrt(1 / fan_in)); the q projections carry SHAAttention's head_dim ** -0.5 in their weights."""
    n, cin, h, w = b.shape(x)
    wt = b.weight("conv.weight", [cout, cin, 1, 1], cin, gain=scale * scale)
    ins = [x, wt] + ([b.bias("conv.bias", cout, std=0.02 * scale)] if bias else [])
    return b.node("Conv", ins, [[n, cout, h, w]], kernel_shape=[1, 1], strides=[1, 1], pads=[0, 0, 0, 0],
                  dilations=[1, 1], group=1)


def _q(b, h):
    return _nhwc(b, _conv1x1(b, h, HD, scale=HD ** -0.5))


def _heads_qkv(b, h):
    """Each head's query, key (transposed for q @ k) and value, one 1x1 conv
    each (AI Hub's single-head attention)."""
    qs = [_q(b, h) for _ in range(HEADS)]
    ks = [b.transpose(_conv1x1(b, h, HD, bias=False), [0, 2, 1, 3]) for _ in range(HEADS)]
    vs = [_nhwc(b, _conv1x1(b, h, HD)) for _ in range(HEADS)]
    return qs, ks, vs


def _nchw(b, x):
    return b.transpose(x, [0, 3, 1, 2])


def _nhwc(b, x):
    return b.transpose(x, [0, 2, 3, 1])


def _heads_attention(b, qs, ks, vs, mask=None):
    """Per head: q @ k (+ mask), view, softmax, @ v; Concat of the heads on the last axis."""
    outs = []
    for q, k, v in zip(qs, ks, vs):
        a = b.matmul(q, k)
        if mask is not None:
            a = b.add(b.reshape(a, b.shape(a)), mask)
        a = b.softmax(b.reshape(a, b.shape(a)), -1)
        outs.append(b.matmul(a, v))
    return b.concat(outs, axis=-1)


def _out_proj(b, y):
    return _nhwc(b, _conv1x1(b, _nchw(b, y), D))


def _ffn(b, x):
    y = b.layernorm(x)
    y = b.gelu(_conv1x1(b, _nchw(b, y), FFN))
    return b.add(x, _nhwc(b, _conv1x1(b, y, D)))


def _split_heads(b, cache):
    """torch.split(cache, 1) on axis 0: one [1, ...] tensor per head."""
    return b.split(cache, [1] * HEADS, axis=0)


def encoder(name, seed):
    b = Builder(name, seed)
    x = b.input("input_features", [1, 80, 2 * AUDIO])
    x = b.node("Unsqueeze", [x, b.ints([0])], [[1, 1, 80, 2 * AUDIO]])
    x = b.transpose(x, [1, 2, 0, 3])
    x = b.gelu(b.conv(x, D, (1, 3), 1, pad=(0, 1)))
    x = b.gelu(b.conv(x, D, (1, 3), 2, pad=(0, 1)))
    x = _nhwc(b, x)                                                        # [1, 1, 1500, 384]
    x = b.add(x, b.param("embed_positions", b.rng("embed_positions").standard_normal((AUDIO, D)) * 0.02))
    for i in range(LAYERS):
        with b.scope(f"layers.{i}"):
            h = _nchw(b, b.layernorm(x))
            qs, ks, vs = _heads_qkv(b, h)
            x = b.add(x, _out_proj(b, _heads_attention(b, qs, ks, vs)))
            x = _ffn(b, x)
    h = _nchw(b, b.layernorm(x))
    for i in range(LAYERS):
        with b.scope(f"encoder_kv.{i}"):
            ks = [b.transpose(_conv1x1(b, h, HD, bias=False), [0, 2, 1, 3]) for _ in range(HEADS)]
            vs = [_nhwc(b, _conv1x1(b, h, HD)) for _ in range(HEADS)]
            b.output(b.concat(ks, axis=0))                                 # k_cache_cross_i
            b.output(b.concat(vs, axis=0))                                 # v_cache_cross_i
    return b


def decoder(name, seed):
    b = Builder(name, seed)
    ids = b.input("input_ids", [1, 1], TensorProto.INT32)
    mask = b.input("attention_mask", [1, 1, 1, DECODE])
    self_kv = []
    for i in range(LAYERS):
        self_kv.append((b.input(f"k_cache_self_{i}_in", [HEADS, 1, HD, DECODE - 1]),
                        b.input(f"v_cache_self_{i}_in", [HEADS, 1, DECODE - 1, HD])))
    cross_kv = []
    for i in range(LAYERS):
        cross_kv.append((b.input(f"k_cache_cross_{i}", [HEADS, 1, HD, AUDIO]),
                         b.input(f"v_cache_cross_{i}", [HEADS, 1, AUDIO, HD])))
    pos_ids = b.input("position_ids", [1], TensorProto.INT32)

    table = (b.rng("embed_tokens").standard_normal((VOCAB, D)) * 0.02).astype(np.float32)
    emb = b.param("embed_tokens", table)
    ids = b.node("Reshape", [ids, b.ints([-1, 1])], [[1, 1]])             # input_ids.view(-1, 1)
    x = b.node("Gather", [emb, ids], [[1, 1, D]], axis=0)
    pos = b.param("embed_positions", b.rng("embed_positions").standard_normal((TEXT_POS, D)) * 0.02)
    pos = b.node("Gather", [pos, pos_ids], [[1, D]], axis=0)
    x = b.add(b.node("Unsqueeze", [x, b.ints([0])], [[1, 1, 1, D]]), pos)
    new_cache = []
    for i in range(LAYERS):
        with b.scope(f"layers.{i}"):
            # self-attention with the cache (SHAAttention, is_causal)
            h = _nchw(b, b.layernorm(x))
            qs, ks, vs = _heads_qkv(b, h)
            past_k, past_v = (_split_heads(b, t) for t in self_kv[i])
            ks = [b.concat([p, k], axis=-1) for p, k in zip(past_k, ks)]
            vs = [b.concat([p, v], axis=-2) for p, v in zip(past_v, vs)]
            k_all = b.slice(b.concat(ks, axis=0), 3, 1, 2 ** 63 - 1)
            v_all = b.slice(b.concat(vs, axis=0), 2, 1, 2 ** 63 - 1)
            new_cache.append(b.reshape(k_all, [HEADS, 1, HD, -1]))
            new_cache.append(b.reshape(v_all, [HEADS, 1, -1, HD]))
            x = b.add(x, _out_proj(b, _heads_attention(b, qs, ks, vs, mask)))
            # cross-attention on the encoder's caches
            h = _nchw(b, b.layernorm(x))
            qs = [_q(b, h) for _ in range(HEADS)]
            ks, vs = (_split_heads(b, t) for t in cross_kv[i])
            x = b.add(x, _out_proj(b, _heads_attention(b, qs, ks, vs)))
            x = _ffn(b, x)
    h = _nchw(b, b.layernorm(x))
    w = b.const(table.reshape(VOCAB, D, 1, 1), base="proj_out.weight")   # a copy of embed_tokens
    b.output(b.node("Conv", [h, w], [[1, VOCAB, 1, 1]], kernel_shape=[1, 1], strides=[1, 1],
                    pads=[0, 0, 0, 0], dilations=[1, 1], group=1))
    for t in new_cache:
        b.output(t)
    return b


MODELS = {
    "whisper_tiny/HfWhisperEncoder": lambda seed: encoder("whisper_tiny.HfWhisperEncoder", seed),
    "whisper_tiny/HfWhisperDecoder": lambda seed: decoder("whisper_tiny.HfWhisperDecoder", seed),
}
