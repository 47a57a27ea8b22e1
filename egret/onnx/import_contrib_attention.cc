// ONNX Runtime's com.microsoft RotaryEmbedding, Attention,
// MultiHeadAttention and GroupQueryAttention (docs/onnx-import.md),
// decomposed into standard ONNX ops as its CPU kernels compute them: the
// rotation as Gather of the cos/sin caches, Slice, Mul/Sub/Add and Concat;
// attention as MatMul(Q, K^T) * scale + mask (+ attention_bias), Softmax,
// MatMul with V, the heads split and merged by Reshape/Transpose, a KV cache
// by Concat, and each KV head of a grouped-query attention repeated for its
// query heads by Reshape/Expand/Reshape (the spellings the rule library
// recognizes). A form not covered returns Unmapped with the reason.
#include <tuple>

#include "egret/onnx/import_contrib_internal.h"

namespace egret::onnx_import::contrib {
namespace {

// The smallest float, which ONNX Runtime's attention kernels write into
// causally masked scores.
constexpr double kLowest = -3.4028234663852886e38;

// ---- rotary embedding

// Rotates the first `rot` channels of the last axis of `x` (rank 4, its
// sequence axis `seq_axis`, 1 or 2) by the angles of `cos`/`sin` (caches
// [max_seq, rot/2]) at the positions `pos` (int64, [S] or [B, S]); the rest
// pass through. Interleaved: channel pairs (2i, 2i+1); else halves (i, i+rot/2).
absl::StatusOr<std::string> Rotate(Steps& s, const std::string& x, int seq_axis,
                                   const std::string& pos, const std::string& cos,
                                   const std::string& sin, int64_t rot, bool interleaved,
                                   const std::string& out) {
  const Dims xd = s.DimsOf(x);
  const int64_t head = xd[3], half = rot / 2;
  if (rot <= 0 || rot % 2 != 0 || rot > head) {
    return absl::InvalidArgumentError(
        absl::StrCat("rotary dim ", rot, " does not fit head size ", head));
  }
  const Dims cd = s.DimsOf(cos);
  if (cd.size() != 2 || cd[1] != half || s.DimsOf(sin) != cd) {
    return absl::InvalidArgumentError(
        absl::StrCat("cos/sin caches ", DimsStr(cd), " do not fit rotary dim ", rot));
  }
  // The angles, broadcast against x: [B|1, S, 1, half] or [B|1, 1, S, half].
  const Dims pd = s.DimsOf(pos);
  const int64_t b = pd.size() == 2 ? pd[0] : 1, seq = pd.back();
  Dims ad = {b, 1, 1, half};
  ad[seq_axis] = seq;
  if (interleaved) ad.push_back(1);
  std::string c, sn;
  {
    EGRET_ASSIGN_OR_RETURN(auto cg, s.Op("Gather", {cos, pos}));
    EGRET_ASSIGN_OR_RETURN(auto sg, s.Op("Gather", {sin, pos}));
    EGRET_ASSIGN_OR_RETURN(c, s.Reshape(cg, ad));
    EGRET_ASSIGN_OR_RETURN(sn, s.Reshape(sg, ad));
  }
  std::string xr = x;
  if (rot < head) {
    EGRET_ASSIGN_OR_RETURN(xr, s.SliceLast(x, 0, rot));
  }
  std::string a, bb;  // the two parts of each rotated pair
  Dims rd = s.DimsOf(xr);
  if (interleaved) {
    Dims pairs = rd;
    pairs.back() = half;
    pairs.push_back(2);
    EGRET_ASSIGN_OR_RETURN(auto xp, s.Reshape(xr, pairs));
    EGRET_ASSIGN_OR_RETURN(a, s.SliceLast(xp, 0, 1));
    EGRET_ASSIGN_OR_RETURN(bb, s.SliceLast(xp, 1, 2));
  } else {
    EGRET_ASSIGN_OR_RETURN(a, s.SliceLast(xr, 0, half));
    EGRET_ASSIGN_OR_RETURN(bb, s.SliceLast(xr, half, rot));
  }
  // (a, b) -> (a cos - b sin, b cos + a sin)
  EGRET_ASSIGN_OR_RETURN(auto ac, s.Bin("Mul", a, c));
  EGRET_ASSIGN_OR_RETURN(auto bs, s.Bin("Mul", bb, sn));
  EGRET_ASSIGN_OR_RETURN(auto ra, s.Bin("Sub", ac, bs));
  EGRET_ASSIGN_OR_RETURN(auto bc, s.Bin("Mul", bb, c));
  EGRET_ASSIGN_OR_RETURN(auto as, s.Bin("Mul", a, sn));
  EGRET_ASSIGN_OR_RETURN(auto rb, s.Bin("Add", bc, as));
  const int last = interleaved ? 4 : 3;
  std::string rotated;
  if (interleaved) {
    EGRET_ASSIGN_OR_RETURN(auto pairs, s.Concat({ra, rb}, last));
    EGRET_ASSIGN_OR_RETURN(rotated, s.Reshape(pairs, rd, rot < head ? "" : out));
  } else {
    EGRET_ASSIGN_OR_RETURN(rotated, s.Concat({ra, rb}, last, rot < head ? "" : out));
  }
  if (rot == head) return rotated;
  EGRET_ASSIGN_OR_RETURN(auto rest, s.SliceLast(x, rot, head));
  return s.Concat({rotated, rest}, 3, out);
}

// Positions first + 0..seq-1 as an int64 [seq] constant.
std::string PositionRange(Steps& s, int64_t first, int64_t seq) {
  std::vector<int64_t> p(static_cast<size_t>(seq));
  for (int64_t i = 0; i < seq; ++i) p[static_cast<size_t>(i)] = first + i;
  return s.Int64s(Dims{seq}, p);
}

}  // namespace

absl::Status DoRotaryEmbedding(Importer& im) {
  EGRET_RETURN_IF_ERROR(RequireFloat32(im, {0, 2, 3}));
  for (int i = 1; i < 4; ++i) {
    if (!im.Has(i)) return absl::InvalidArgumentError(absl::StrCat("input ", i, " is required"));
  }
  if (im.AttrInt("is_packed_batching", 0) != 0) return Unmapped("packed batching is not mapped");
  if (im.In(1).type.dtype != DType::kInt64) return Unmapped("position_ids is not int64");
  const Dims xd = im.In(0).type.dims;
  const Dims cd = im.In(2).type.dims;
  if (cd.size() != 2) return absl::InvalidArgumentError("cos_cache is not 2-D");
  int64_t num_heads = im.AttrInt("num_heads", 0);
  const int64_t rot_attr = im.AttrInt("rotary_embedding_dim", 0);
  if (rot_attr > 0 && num_heads <= 0) {
    return absl::InvalidArgumentError("rotary_embedding_dim needs num_heads");
  }
  Steps s(im);
  std::string x = im.InName(0);
  int seq_axis;
  int64_t batch, seq;
  if (xd.size() == 4) {  // [B, N, S, H]
    seq_axis = 2;
    batch = xd[0];
    seq = xd[2];
  } else if (xd.size() == 3) {  // [B, S, N*H] as [B, S, N, H]
    const int64_t head = rot_attr == 0 ? cd[1] * 2 : (num_heads > 0 ? xd[2] / num_heads : 0);
    if (head <= 0 || xd[2] % head != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("hidden size ", xd[2], " is no multiple of the head size"));
    }
    seq_axis = 1;
    batch = xd[0];
    seq = xd[1];
    EGRET_ASSIGN_OR_RETURN(x, s.Reshape(x, Dims{xd[0], xd[1], xd[2] / head, head}));
  } else {
    return absl::InvalidArgumentError(absl::StrCat("input ", DimsStr(xd), " is not 3-D or 4-D"));
  }
  const int64_t head = s.DimsOf(x)[3];
  const int64_t rot = rot_attr > 0 ? rot_attr : head;
  // position_ids: 1 element (the first position) or [B, S].
  const Value& pv = im.In(1);
  std::string pos;
  if (pv.type.num_elements() == 1 && pv.type.rank() <= 1) {
    if (pv.constant) {
      pos = PositionRange(s, static_cast<int64_t>(pv.constant->GetValue(0)), seq);
    } else {
      EGRET_ASSIGN_OR_RETURN(auto p0, s.Reshape(im.InName(1), Dims{1}));
      EGRET_ASSIGN_OR_RETURN(pos, s.Bin("Add", p0, PositionRange(s, 0, seq)));
    }
  } else if (pv.type.dims == Dims{batch, seq}) {
    pos = im.InName(1);
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("position_ids ", DimsStr(pv.type.dims), " is neither 1 element nor [B, S]"));
  }
  const bool reshaped = xd.size() == 3;
  EGRET_ASSIGN_OR_RETURN(auto y,
                         Rotate(s, x, seq_axis, pos, im.InName(2), im.InName(3), rot,
                                im.AttrInt("interleaved", 0) != 0, reshaped ? "" : im.Out()));
  if (reshaped) return s.Reshape(y, xd, im.Out()).status();
  return absl::OkStatus();
}

namespace {

// ---- attention

// [B, L, N*h] -> [B, N, L, h].
absl::StatusOr<std::string> SplitHeads(Steps& s, const std::string& x, int64_t heads) {
  const Dims d = s.DimsOf(x);
  if (d.size() != 3 || heads <= 0 || d[2] % heads != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot split ", DimsStr(d), " into ", heads, " heads"));
  }
  EGRET_ASSIGN_OR_RETURN(auto r, s.Reshape(x, Dims{d[0], d[1], heads, d[2] / heads}));
  return s.Transpose(r, {0, 2, 1, 3});
}

// past ++ x along the sequence axis (2) of BNSH tensors; `out` names it.
absl::StatusOr<std::string> AppendPast(Steps& s, const std::string& past, const std::string& x,
                                       const std::string& out) {
  if (past.empty() || s.DimsOf(past)[2] == 0) {
    if (out.empty()) return x;
    s.im().Alias(out, x);
    return out;
  }
  return s.Concat({past, x}, 2, out);
}

// The additive mask, broadcast against scores [B, N, S, T] (empty when
// none): the key padding mask input `mask` (raw [B, T] or [B, S, T] of 0/1,
// [B] end positions or [2B] end then start positions), 0 kept and
// filter_value masked, then, when causal, key j > past + i of query i < S - 1
// set to the lowest float (past: the length of the past keys, whatever T - S
// is; the last query row keeps every key, as in ONNX Runtime's kernels, which
// differs from j <= past + i only when the keys are not past + S long), and
// with a local window w >= 0, keys j < past + i + 1 - w too.
absl::StatusOr<std::string> AttentionMask(Steps& s, int mask, int64_t b, int64_t seq, int64_t total,
                                          int64_t past, bool causal, double filter_value,
                                          int64_t window = -1) {
  Importer& im = s.im();
  std::string add;
  if (mask >= 0 && im.Has(mask)) {
    const Dims md = im.In(mask).type.dims;
    EGRET_ASSIGN_OR_RETURN(
        auto mf, s.Op("Cast", {im.InName(mask)}, {IntAttr("to", onnx::TensorProto::FLOAT)}));
    std::string keep;
    Dims shape;
    if (md == Dims{b, total}) {
      EGRET_ASSIGN_OR_RETURN(keep, s.Op("Greater", {mf, s.Scalar(0.0)}));
      shape = {b, 1, 1, total};
    } else if (md == Dims{b, seq, total}) {
      EGRET_ASSIGN_OR_RETURN(keep, s.Op("Greater", {mf, s.Scalar(0.0)}));
      shape = {b, 1, seq, total};
    } else if (md == Dims{b} || md == Dims{2 * b}) {
      // Right padding: keys at or after the end are masked; left padding
      // (the second half): keys before the start too.
      std::vector<double> idx(static_cast<size_t>(total));
      for (int64_t j = 0; j < total; ++j) idx[static_cast<size_t>(j)] = static_cast<double>(j);
      const std::string positions = s.Const(DType::kFloat32, Dims{1, total}, idx);
      std::string ends = mf, starts;
      if (md[0] == 2 * b) {
        EGRET_ASSIGN_OR_RETURN(ends, s.SliceFirst(mf, 0, b));
        EGRET_ASSIGN_OR_RETURN(starts, s.SliceFirst(mf, b, 2 * b));
        EGRET_ASSIGN_OR_RETURN(starts, s.Reshape(starts, Dims{b, 1}));
      }
      EGRET_ASSIGN_OR_RETURN(auto end, s.Reshape(ends, Dims{b, 1}));
      EGRET_ASSIGN_OR_RETURN(keep, s.Op("Less", {positions, end}));
      if (!starts.empty()) {
        EGRET_ASSIGN_OR_RETURN(auto after, s.Op("GreaterOrEqual", {positions, starts}));
        EGRET_ASSIGN_OR_RETURN(keep, s.Op("And", {keep, after}));
      }
      shape = {b, 1, 1, total};
    } else {
      return Unmapped(absl::StrCat("the mask shape ", DimsStr(md), " is not mapped"));
    }
    EGRET_ASSIGN_OR_RETURN(auto w, s.Op("Where", {keep, s.Scalar(0.0), s.Scalar(filter_value)}));
    EGRET_ASSIGN_OR_RETURN(add, s.Reshape(w, shape));
  }
  if (!causal) return add;
  std::vector<double> allowed(static_cast<size_t>(seq * total));
  for (int64_t i = 0; i < seq; ++i) {
    for (int64_t j = 0; j < total; ++j) {
      const bool in_window = window < 0 || j >= past + i + 1 - window;
      allowed[static_cast<size_t>(i * total + j)] = (j <= past + i || i == seq - 1) && in_window;
    }
  }
  if (add.empty()) {
    for (double& v : allowed) v = v != 0 ? 0.0 : kLowest;
    return s.Const(DType::kFloat32, Dims{seq, total}, allowed);
  }
  return s.Op("Where", {s.Const(DType::kBool, Dims{seq, total}, allowed), add, s.Scalar(kLowest)});
}

// softmax(c(q k^T * scale) + mask + bias) v for q [B, N, S, h], k [B, Nk, T,
// h], v [B, Nk, T, hv] (each KV head serving N/Nk query heads), into `out`
// [B, S, N*hv]; c(x) = softcap * tanh(x / softcap) when softcap > 0, else x.
// With a `sink` (a tensor broadcasting to [B, N, S, 1]), the softmax's
// denominator also counts exp(sink): a softmax over the scores and the sink,
// the sink's column dropped.
absl::Status AttentionCore(Steps& s, const std::string& q, std::string k, std::string v,
                           double scale, const std::string& mask, const std::string& bias,
                           const std::string& out, double softcap = 0.0,
                           const std::string& sink = "") {
  const Dims qd = s.DimsOf(q);
  const Dims kd = s.DimsOf(k);
  const Dims vd = s.DimsOf(v);
  const int64_t b = qd[0], n = qd[1], seq = qd[2], nk = kd[1], total = kd[2];
  if (kd[3] != qd[3] || vd[1] != nk || vd[2] != total || nk <= 0 || n % nk != 0) {
    return absl::InvalidArgumentError(absl::StrCat("query ", DimsStr(qd), ", key ", DimsStr(kd),
                                                   " and value ", DimsStr(vd), " do not fit"));
  }
  if (nk != n) {  // repeat each KV head for its group of query heads
    const int64_t g = n / nk;
    for (std::string* t : {&k, &v}) {
      const Dims d = s.DimsOf(*t);
      EGRET_ASSIGN_OR_RETURN(auto r, s.Reshape(*t, Dims{b, nk, 1, d[2], d[3]}));
      EGRET_ASSIGN_OR_RETURN(auto e,
                             s.Op("Expand", {r, s.Int64s(Dims{5}, {b, nk, g, d[2], d[3]})}));
      EGRET_ASSIGN_OR_RETURN(*t, s.Reshape(e, Dims{b, n, d[2], d[3]}));
    }
  }
  EGRET_ASSIGN_OR_RETURN(auto kt, s.Transpose(k, {0, 1, 3, 2}));
  EGRET_ASSIGN_OR_RETURN(auto qk, s.Op("MatMul", {q, kt}));
  EGRET_ASSIGN_OR_RETURN(auto scores, s.Bin("Mul", qk, s.Scalar(scale)));
  if (softcap > 0.0) {
    EGRET_ASSIGN_OR_RETURN(auto capped, s.Bin("Div", scores, s.Scalar(softcap)));
    EGRET_ASSIGN_OR_RETURN(capped, s.Un("Tanh", capped));
    EGRET_ASSIGN_OR_RETURN(scores, s.Bin("Mul", capped, s.Scalar(softcap)));
  }
  if (!mask.empty()) {
    EGRET_ASSIGN_OR_RETURN(scores, s.Bin("Add", scores, mask));
  }
  if (!bias.empty()) {
    EGRET_ASSIGN_OR_RETURN(scores, s.Bin("Add", scores, bias));
  }
  if (!sink.empty()) {
    EGRET_ASSIGN_OR_RETURN(auto sinks, s.Op("Expand", {sink, s.Int64s(Dims{4}, {b, n, seq, 1})}));
    EGRET_ASSIGN_OR_RETURN(scores, s.Concat({scores, sinks}, 3));
  }
  EGRET_ASSIGN_OR_RETURN(auto probs, s.Op("Softmax", {scores}, {IntAttr("axis", 3)}));
  if (!sink.empty()) {
    EGRET_ASSIGN_OR_RETURN(probs, s.SliceLast(probs, 0, total));
  }
  EGRET_ASSIGN_OR_RETURN(auto o, s.Op("MatMul", {probs, v}));
  EGRET_ASSIGN_OR_RETURN(auto ot, s.Transpose(o, {0, 2, 1, 3}));
  return s.Reshape(ot, Dims{b, seq, n * vd[3]}, out).status();
}

// attention_bias (input i) when present: [B|1, N|1, S, T].
absl::StatusOr<std::string> AttentionBias(Importer& im, int i, int64_t seq, int64_t total) {
  if (!im.Has(i)) return std::string();
  const Dims d = im.In(i).type.dims;
  if (d.size() != 4 || d[2] != seq || d[3] != total) {
    return absl::InvalidArgumentError(
        absl::StrCat("attention_bias ", DimsStr(d), " is not [B|1, N|1, ", seq, ", ", total, "]"));
  }
  return im.InName(i);
}

// The end Attention and MultiHeadAttention share: their mask (input
// `mask_input`, `unidirectional`, `mask_filter_value`), attention_bias (input
// 5) and `scale` (default 1/sqrt(h)) around AttentionCore, into output 0.
absl::Status MaskedAttention(Steps& s, const std::string& q, const std::string& k,
                             const std::string& v, int mask_input, int64_t b, int64_t seq,
                             int64_t total, int64_t past, int64_t h) {
  Importer& im = s.im();
  EGRET_ASSIGN_OR_RETURN(auto mask, AttentionMask(s, mask_input, b, seq, total, past,
                                                  im.AttrInt("unidirectional", 0) != 0,
                                                  im.AttrFloat("mask_filter_value", -10000.0)));
  EGRET_ASSIGN_OR_RETURN(auto bias, AttentionBias(im, 5, seq, total));
  const double scale = im.AttrFloat("scale", 1.0 / std::sqrt(static_cast<double>(h)));
  return AttentionCore(s, q, k, v, scale, mask, bias, im.Out());
}

}  // namespace

absl::Status DoAttention(Importer& im) {
  EGRET_RETURN_IF_ERROR(RequireFloat32(im, {0, 1, 2, 4, 5}));
  if (im.Has(6)) return Unmapped("past_sequence_length (a shared KV buffer) is not mapped");
  if (im.AttrInt("past_present_share_buffer", 0) != 0)
    return Unmapped("a shared KV buffer is not mapped");
  if (im.AttrInt("do_rotary", 0) != 0) return Unmapped("do_rotary is not mapped");
  const int64_t n = im.AttrInt("num_heads", 0);
  const Dims xd = im.In(0).type.dims;
  const Dims wd = im.In(1).type.dims;
  if (n <= 0) return absl::InvalidArgumentError("num_heads must be positive");
  if (xd.size() != 3 || wd.size() != 2 || wd[0] != xd[2]) {
    return absl::InvalidArgumentError(
        absl::StrCat("input ", DimsStr(xd), " and weights ", DimsStr(wd), " do not fit"));
  }
  int64_t hq = wd[1] / 3, hk = hq, hv = hq;
  if (auto sizes = im.AttrInts("qkv_hidden_sizes"); sizes && !sizes->empty()) {
    if (sizes->size() != 3) return absl::InvalidArgumentError("qkv_hidden_sizes has not 3 values");
    hq = (*sizes)[0], hk = (*sizes)[1], hv = (*sizes)[2];
  }
  if (hq <= 0 || hv <= 0 || hq + hk + hv != wd[1] || hq != hk || hq % n != 0 || hv % n != 0) {
    return absl::InvalidArgumentError("the Q/K/V hidden sizes do not fit the weights and heads");
  }
  const int64_t b = xd[0], seq = xd[1], h = hq / n;
  Steps s(im);
  EGRET_ASSIGN_OR_RETURN(auto qkv, s.Op("MatMul", {im.InName(0), im.InName(1)}));
  if (im.Has(2)) {
    EGRET_ASSIGN_OR_RETURN(qkv, s.Bin("Add", qkv, im.InName(2)));
  }
  EGRET_ASSIGN_OR_RETURN(auto q3, s.SliceLast(qkv, 0, hq));
  EGRET_ASSIGN_OR_RETURN(auto k3, s.SliceLast(qkv, hq, hq + hk));
  EGRET_ASSIGN_OR_RETURN(auto v3, s.SliceLast(qkv, hq + hk, wd[1]));
  EGRET_ASSIGN_OR_RETURN(auto q, SplitHeads(s, q3, n));
  EGRET_ASSIGN_OR_RETURN(auto k, SplitHeads(s, k3, n));
  EGRET_ASSIGN_OR_RETURN(auto v, SplitHeads(s, v3, n));
  int64_t past = 0;
  std::string past_k, past_v;
  if (im.Has(4)) {
    const Dims pd = im.In(4).type.dims;
    if (pd.size() != 5 || pd[0] != 2 || pd[1] != b || pd[2] != n || pd[4] != h || hv != hq) {
      return absl::InvalidArgumentError(
          absl::StrCat("past ", DimsStr(pd), " is not [2, ", b, ", ", n, ", P, ", h, "]"));
    }
    past = pd[3];
    EGRET_ASSIGN_OR_RETURN(auto pk, s.SliceFirst(im.InName(4), 0, 1));
    EGRET_ASSIGN_OR_RETURN(auto pv, s.SliceFirst(im.InName(4), 1, 2));
    EGRET_ASSIGN_OR_RETURN(past_k, s.Reshape(pk, Dims{b, n, past, h}));
    EGRET_ASSIGN_OR_RETURN(past_v, s.Reshape(pv, Dims{b, n, past, h}));
  }
  EGRET_ASSIGN_OR_RETURN(k, AppendPast(s, past_k, k, ""));
  EGRET_ASSIGN_OR_RETURN(v, AppendPast(s, past_v, v, ""));
  const int64_t total = past + seq;
  if (im.OutputUsed(1)) {
    EGRET_ASSIGN_OR_RETURN(auto k5, s.Reshape(k, Dims{1, b, n, total, h}));
    EGRET_ASSIGN_OR_RETURN(auto v5, s.Reshape(v, Dims{1, b, n, total, h}));
    EGRET_RETURN_IF_ERROR(s.Concat({k5, v5}, 0, im.Out(1)).status());
  }
  return MaskedAttention(s, q, k, v, 3, b, seq, total, past, h);
}

namespace {

// MultiHeadAttention of one new token over a shared KV buffer with cache
// indirection, as ONNX Runtime's decoder-masked kernel computes it. q, k, v
// are the new token's heads, [B, N, 1, h] with their bias. past_key and
// past_value (inputs 6, 7: [B, N, M, h]) hold M slots, the first P of them
// filled (P: input 8, one int32 known only at run time). The new key and
// value go to slot P: the present outputs are the past with slot P replaced.
// The query attends to slots 0..P, slot j < P read from the beam
// cache_indirection[b / W, b % W, j] (input 9, [B/W, W, M]) of its batch's W
// beams. Decomposed over all M slots, the unfilled ones masked: a position
// constant compared with P (Equal, LessOrEqual), Where, and a Gather of the
// past's rows by beam.
absl::Status SharedBufferAttention(Steps& s, const std::string& q, const std::string& k,
                                   const std::string& v, int64_t h) {
  Importer& im = s.im();
  const Dims qd = s.DimsOf(q);
  const int64_t b = qd[0], n = qd[1];
  if (!im.Has(6) || !im.Has(7) || !im.Has(8) || !im.Has(9)) {
    return Unmapped(
        "past_sequence_length without past_key, past_value and cache_indirection "
        "is not mapped");
  }
  if (qd[2] != 1) return Unmapped("a shared KV buffer with more than one new token is not mapped");
  if (im.Has(4)) return Unmapped("a key padding mask with a shared KV buffer is not mapped");
  if (im.Has(5)) return Unmapped("attention_bias with a shared KV buffer is not mapped");
  const Dims pk = im.In(6).type.dims, pv = im.In(7).type.dims, cd = im.In(9).type.dims;
  const int64_t m = pk.size() == 4 ? pk[2] : 0;
  if (pk != Dims{b, n, m, h} || pv != Dims{b, n, m, s.DimsOf(v)[3]} || m <= 0) {
    return absl::InvalidArgumentError(absl::StrCat("past_key ", DimsStr(pk), " and past_value ",
                                                   DimsStr(pv), " are not [B, N, M, h]"));
  }
  if (cd.size() != 3 || cd[1] <= 0 || cd[0] * cd[1] != b || cd[2] != m) {
    return absl::InvalidArgumentError(
        absl::StrCat("cache_indirection ", DimsStr(cd), " is not [B/W, W, ", m, "]"));
  }
  if (im.In(8).type.num_elements() != 1) {
    return absl::InvalidArgumentError("past_sequence_length has not one element");
  }
  const int64_t beams = cd[1];
  std::vector<double> slots(static_cast<size_t>(m));
  for (int64_t j = 0; j < m; ++j) slots[static_cast<size_t>(j)] = static_cast<double>(j);
  const std::string slot = s.Const(DType::kFloat32, Dims{m}, slots);
  EGRET_ASSIGN_OR_RETURN(auto filled,
                         s.Op("Cast", {im.InName(8)}, {IntAttr("to", onnx::TensorProto::FLOAT)}));
  EGRET_ASSIGN_OR_RETURN(filled, s.Reshape(filled, Dims{1}));
  EGRET_ASSIGN_OR_RETURN(auto at, s.Op("Equal", {slot, filled}));
  EGRET_ASSIGN_OR_RETURN(at, s.Reshape(at, Dims{1, 1, m, 1}));
  EGRET_ASSIGN_OR_RETURN(auto seen, s.Op("LessOrEqual", {slot, filled}));
  EGRET_ASSIGN_OR_RETURN(auto mask, s.Op("Where", {seen, s.Scalar(0.0), s.Scalar(kLowest)}));
  EGRET_ASSIGN_OR_RETURN(mask, s.Reshape(mask, Dims{1, 1, 1, m}));
  // Row (beam batch of b) * M + j of the past seen as [B * M, N * h].
  std::vector<double> first_row(static_cast<size_t>(b * m));
  for (int64_t i = 0; i < b; ++i) {
    for (int64_t j = 0; j < m; ++j) {
      first_row[static_cast<size_t>(i * m + j)] = static_cast<double>(i / beams * beams * m + j);
    }
  }
  EGRET_ASSIGN_OR_RETURN(auto beam,
                         s.Op("Cast", {im.InName(9)}, {IntAttr("to", onnx::TensorProto::FLOAT)}));
  EGRET_ASSIGN_OR_RETURN(beam, s.Reshape(beam, Dims{b, m}));
  // Only the filled slots' beams are read; the others may be anything.
  EGRET_ASSIGN_OR_RETURN(auto past, s.Op("Less", {slot, filled}));
  EGRET_ASSIGN_OR_RETURN(beam, s.Op("Where", {past, beam, s.Scalar(0.0)}));
  EGRET_ASSIGN_OR_RETURN(auto row, s.Bin("Mul", beam, s.Scalar(static_cast<double>(m))));
  EGRET_ASSIGN_OR_RETURN(row, s.Bin("Add", row, s.Const(DType::kFloat32, Dims{b, m}, first_row)));
  EGRET_ASSIGN_OR_RETURN(row, s.Op("Cast", {row}, {IntAttr("to", onnx::TensorProto::INT64)}));
  std::string seen_k, seen_v;
  for (const auto& [input, fresh, seen_out] :
       {std::tuple{6, k, &seen_k}, std::tuple{7, v, &seen_v}}) {
    const std::string past = im.InName(input);
    const int64_t hd = s.DimsOf(past)[3];
    if (im.OutputUsed(input - 5)) {
      EGRET_RETURN_IF_ERROR(s.Op("Where", {at, fresh, past}, {}, im.Out(input - 5)).status());
    }
    EGRET_ASSIGN_OR_RETURN(auto rows, s.Transpose(past, {0, 2, 1, 3}));
    EGRET_ASSIGN_OR_RETURN(rows, s.Reshape(rows, Dims{b * m, n * hd}));
    EGRET_ASSIGN_OR_RETURN(auto read, s.Op("Gather", {rows, row}, {IntAttr("axis", 0)}));
    EGRET_ASSIGN_OR_RETURN(read, s.Reshape(read, Dims{b, m, n, hd}));
    EGRET_ASSIGN_OR_RETURN(read, s.Transpose(read, {0, 2, 1, 3}));
    EGRET_ASSIGN_OR_RETURN(*seen_out, s.Op("Where", {at, fresh, read}));
  }
  const double scale = im.AttrFloat("scale", 1.0 / std::sqrt(static_cast<double>(h)));
  return AttentionCore(s, q, seen_k, seen_v, scale, mask, "", im.Out());
}

}  // namespace

absl::Status DoMultiHeadAttention(Importer& im) {
  EGRET_RETURN_IF_ERROR(RequireFloat32(im, {0, 1, 2, 3, 5, 6, 7}));
  EGRET_RETURN_IF_ERROR(RequireUnused(im, 3, "qk"));
  if (!im.Has(1) || !im.Has(2))
    return Unmapped("packed QKV or KV (no separate key and value) is not mapped");
  const int64_t n = im.AttrInt("num_heads", 0);
  if (n <= 0) return absl::InvalidArgumentError("num_heads must be positive");
  const Dims qd = im.In(0).type.dims;
  const Dims kd = im.In(1).type.dims;
  const Dims vd = im.In(2).type.dims;
  if (qd.size() != 3 || qd[2] <= 0 || qd[2] % n != 0) {
    return absl::InvalidArgumentError(absl::StrCat("query ", DimsStr(qd), " is not [B, S, N*h]"));
  }
  const int64_t b = qd[0], seq = qd[1], h = qd[2] / n;
  Steps s(im);
  std::string q3 = im.InName(0), k, v;
  const bool bnsh_kv = kd.size() == 4;
  if (im.Has(3)) {
    const Dims bd = im.In(3).type.dims;
    if (bd.size() != 1 || bd[0] < qd[2]) {
      return absl::InvalidArgumentError("bias is not 1-D or shorter than the query's hidden size");
    }
    EGRET_ASSIGN_OR_RETURN(auto qb, s.SliceLast(im.InName(3), 0, qd[2]));
    EGRET_ASSIGN_OR_RETURN(q3, s.Bin("Add", q3, qb));
    if (!bnsh_kv) {  // key and value of BNSH take no bias
      if (kd.size() != 3 || vd.size() != 3 || bd[0] != qd[2] + kd[2] + vd[2]) {
        return absl::InvalidArgumentError("bias does not fit query, key and value");
      }
      EGRET_ASSIGN_OR_RETURN(auto kb, s.SliceLast(im.InName(3), qd[2], qd[2] + kd[2]));
      EGRET_ASSIGN_OR_RETURN(auto vb, s.SliceLast(im.InName(3), qd[2] + kd[2], bd[0]));
      EGRET_ASSIGN_OR_RETURN(k, s.Bin("Add", im.InName(1), kb));
      EGRET_ASSIGN_OR_RETURN(v, s.Bin("Add", im.InName(2), vb));
    }
  }
  EGRET_ASSIGN_OR_RETURN(auto q, SplitHeads(s, q3, n));
  if (bnsh_kv) {
    if (vd.size() != 4 || kd[0] != b || kd[1] != n || kd[3] != h || vd[0] != b || vd[1] != n ||
        vd[2] != kd[2]) {
      return absl::InvalidArgumentError("key and value of BNSH do not fit the query");
    }
    if (im.Has(6) || im.Has(7)) return Unmapped("past with key and value of BNSH is not mapped");
    k = im.InName(1);
    v = im.InName(2);
  } else {
    if (kd.size() != 3 || vd.size() != 3 || kd[0] != b || vd[0] != b || vd[1] != kd[1] ||
        kd[2] != qd[2] || vd[2] % n != 0) {
      return Unmapped(absl::StrCat("key ", DimsStr(kd), " and value ", DimsStr(vd),
                                   " in this form are not mapped"));
    }
    EGRET_ASSIGN_OR_RETURN(k, SplitHeads(s, k.empty() ? im.InName(1) : k, n));
    EGRET_ASSIGN_OR_RETURN(v, SplitHeads(s, v.empty() ? im.InName(2) : v, n));
  }
  if (im.Has(6) != im.Has(7))
    return absl::InvalidArgumentError("past_key and past_value go together");
  if (im.Has(8) || im.Has(9)) return SharedBufferAttention(s, q, k, v, h);
  int64_t past = 0;
  if (im.Has(6)) {
    const Dims pk = im.In(6).type.dims;
    const Dims pv = im.In(7).type.dims;
    const Dims vhd = s.DimsOf(v);
    if (pk.size() != 4 || pk[0] != b || pk[1] != n || pk[3] != h || pv.size() != 4 ||
        pv[2] != pk[2] || pv[3] != vhd[3]) {
      return absl::InvalidArgumentError("past_key and past_value do not fit");
    }
    past = pk[2];
  }
  EGRET_ASSIGN_OR_RETURN(
      k, AppendPast(s, im.Has(6) ? im.InName(6) : "", k, im.OutputUsed(1) ? im.Out(1) : ""));
  EGRET_ASSIGN_OR_RETURN(
      v, AppendPast(s, im.Has(7) ? im.InName(7) : "", v, im.OutputUsed(2) ? im.Out(2) : ""));
  const int64_t total = s.DimsOf(k)[2];
  return MaskedAttention(s, q, k, v, 4, b, seq, total, past, h);
}

// GroupQueryAttention as ONNX Runtime GenAI writes it. ONNX Runtime's kernel
// takes the KV cache to hold no padding: seqlens_k + 1 = total_sequence_length
// = past + new for every batch row, the new keys appended after the past; the
// decomposition does the same, and stays opaque when constant seqlens_k or
// total_sequence_length say otherwise.
absl::Status DoGroupQueryAttention(Importer& im) {
  EGRET_RETURN_IF_ERROR(RequireFloat32(im, {0, 1, 2, 3, 4, 7, 8, 10}));
  const double softcap = im.AttrFloat("softcap", 0.0);
  if (softcap < 0.0) return absl::InvalidArgumentError("softcap is negative");
  const int64_t window = im.AttrInt("local_window_size", -1);
  EGRET_RETURN_IF_ERROR(RequireUnused(im, 3, "output_qk"));
  const int64_t n = im.AttrInt("num_heads", 0), nk = im.AttrInt("kv_num_heads", 0);
  if (n <= 0 || nk <= 0 || n % nk != 0) {
    return absl::InvalidArgumentError("num_heads must be a positive multiple of kv_num_heads");
  }
  if (!im.Has(5) || !im.Has(6)) {
    return absl::InvalidArgumentError("seqlens_k and total_sequence_length are required");
  }
  const Dims qd = im.In(0).type.dims;
  if (qd.size() != 3) return Unmapped(absl::StrCat("query ", DimsStr(qd), " is not 3-D"));
  const int64_t b = qd[0], seq = qd[1];
  Steps s(im);
  std::string q3 = im.InName(0), k3, v3;
  int64_t h;
  if (!im.Has(1)) {  // packed QKV: [B, S, (N + 2 Nk) h]
    if (qd[2] <= 0 || qd[2] % (n + 2 * nk) != 0)
      return absl::InvalidArgumentError("packed QKV does not fit the heads");
    h = qd[2] / (n + 2 * nk);
    EGRET_ASSIGN_OR_RETURN(q3, s.SliceLast(im.InName(0), 0, n * h));
    EGRET_ASSIGN_OR_RETURN(k3, s.SliceLast(im.InName(0), n * h, (n + nk) * h));
    EGRET_ASSIGN_OR_RETURN(v3, s.SliceLast(im.InName(0), (n + nk) * h, qd[2]));
  } else {
    if (!im.Has(2)) return absl::InvalidArgumentError("key without value");
    if (qd[2] <= 0 || qd[2] % n != 0) {
      return absl::InvalidArgumentError("query does not fit num_heads");
    }
    h = qd[2] / n;
    k3 = im.InName(1);
    v3 = im.InName(2);
    if (im.In(1).type.dims != Dims{b, seq, nk * h} || im.In(2).type.dims != Dims{b, seq, nk * h}) {
      return Unmapped("key or value is not [B, S, kv_num_heads * head_size]");
    }
  }
  int64_t past = 0;
  if (im.Has(3) != im.Has(4))
    return absl::InvalidArgumentError("past_key and past_value go together");
  if (im.Has(3)) {
    const Dims pk = im.In(3).type.dims;
    if (pk.size() != 4 || pk[0] != b || pk[1] != nk || pk[3] != h || im.In(4).type.dims != pk) {
      return absl::InvalidArgumentError(absl::StrCat("past_key ", DimsStr(pk), " is not [", b, ", ",
                                                     nk, ", P, ", h, "] or past_value differs"));
    }
    past = pk[2];
  }
  const int64_t total = past + seq;
  if (const Value& t = im.In(6); t.constant) {
    if (t.constant->num_elements() != 1 || t.constant->GetValue(0) != static_cast<double>(total)) {
      return Unmapped(absl::StrCat("total_sequence_length is not past + new = ", total,
                                   " (a shared KV buffer)"));
    }
  }
  if (const Value& sk = im.In(5); sk.constant) {
    for (int64_t i = 0; i < sk.constant->num_elements(); ++i) {
      if (sk.constant->GetValue(i) != static_cast<double>(total - 1)) {
        return Unmapped("seqlens_k marks padding, which is not mapped");
      }
    }
  }
  EGRET_ASSIGN_OR_RETURN(auto q, SplitHeads(s, q3, n));
  EGRET_ASSIGN_OR_RETURN(auto k, SplitHeads(s, k3, nk));
  EGRET_ASSIGN_OR_RETURN(auto v, SplitHeads(s, v3, nk));
  if (im.AttrInt("do_rotary", 0) != 0) {
    if (!im.Has(7) || !im.Has(8))
      return absl::InvalidArgumentError("do_rotary needs cos_cache and sin_cache");
    const Dims cd = im.In(7).type.dims;
    if (cd.size() != 2 || cd[0] < total) {
      return absl::InvalidArgumentError("cos_cache is not [max_seq >= total, rotary_dim / 2]");
    }
    // The rotary positions: past + 0..S-1, or from position_ids [B, S]: its
    // first element + 0..S-1 for the first prompt (no past), else itself.
    std::string pos = PositionRange(s, past, seq);
    if (im.Has(9)) {
      if (im.In(9).type.dtype != DType::kInt64 || im.In(9).type.dims != Dims{b, seq}) {
        return absl::InvalidArgumentError("position_ids is not int64 [B, S]");
      }
      if (past == 0) {
        EGRET_ASSIGN_OR_RETURN(auto flat, s.Reshape(im.InName(9), Dims{b * seq}));
        EGRET_ASSIGN_OR_RETURN(auto first, s.SliceFirst(flat, 0, 1));
        EGRET_ASSIGN_OR_RETURN(pos, s.Bin("Add", first, PositionRange(s, 0, seq)));
      } else {
        pos = im.InName(9);
      }
    }
    const bool inter = im.AttrInt("rotary_interleaved", 0) != 0;
    EGRET_ASSIGN_OR_RETURN(q,
                           Rotate(s, q, 2, pos, im.InName(7), im.InName(8), cd[1] * 2, inter, ""));
    EGRET_ASSIGN_OR_RETURN(k,
                           Rotate(s, k, 2, pos, im.InName(7), im.InName(8), cd[1] * 2, inter, ""));
  }
  EGRET_ASSIGN_OR_RETURN(
      k, AppendPast(s, im.Has(3) ? im.InName(3) : "", k, im.OutputUsed(1) ? im.Out(1) : ""));
  EGRET_ASSIGN_OR_RETURN(
      v, AppendPast(s, im.Has(4) ? im.InName(4) : "", v, im.OutputUsed(2) ? im.Out(2) : ""));
  EGRET_ASSIGN_OR_RETURN(auto mask, AttentionMask(s, -1, b, seq, total, past, true, 0.0, window));
  EGRET_ASSIGN_OR_RETURN(auto bias, AttentionBias(im, 10, seq, total));
  // A smooth softmax: its sink is head_sink (one per head), else 0.
  std::string sink;
  if (im.Has(11)) {
    if (im.In(11).type.dims != Dims{n}) return absl::InvalidArgumentError("head_sink is not [N]");
    EGRET_ASSIGN_OR_RETURN(sink, s.Reshape(im.InName(11), Dims{1, n, 1, 1}));
  } else if (im.AttrInt("smooth_softmax", 0) != 0) {
    sink = s.Scalar(0.0);
  }
  const double scale = im.AttrFloat("scale", 0.0);
  return AttentionCore(s, q, k, v, scale != 0.0 ? scale : 1.0 / std::sqrt(static_cast<double>(h)),
                       mask, bias, im.Out(), softcap, sink);
}

}  // namespace egret::onnx_import::contrib
