// Recurrent layers: LSTM, GRU and RNN unrolled over a static sequence of at
// most kMaxUnrollSteps steps into FullyConnected, elementwise and activation
// ops. The input projection of every step is one FullyConnected over the
// whole sequence ([S*B, I] x W^T + Wb + Rb); each step then adds H_{t-1} R^T,
// splits the gates and applies the cell's equations (ONNX's operator docs).
// Supported: constant W/R/B (and LSTM peepholes P), forward, reverse and
// bidirectional, layout 0 and 1, initial_h/initial_c, all outputs, the
// default activations. Other forms (other activations, clip, input_forget,
// sequence_lens shorter than the sequence, longer sequences, runtime
// weights) stay opaque onnx.LSTM/GRU/RNN nodes.
#include "absl/strings/ascii.h"
#include "egret/onnx/importer_internal.h"

namespace egret::onnx_import {

namespace {

enum class Cell { kLstm, kGru, kRnn };

// `dims` elements of constant t from flat element `first` on.
Tensor Elements(const Tensor& t, int64_t first, Dims dims) {
  TensorType type(t.type().dtype, std::move(dims));
  const size_t es = static_cast<size_t>(ElementSize(type.dtype));
  const uint8_t* p = t.bytes().data() + static_cast<size_t>(first) * es;
  return *Tensor::FromBytes(type, absl::MakeConstSpan(p, static_cast<size_t>(type.byte_size())));
}

class Unroller {
 public:
  Unroller(Importer& im, Cell cell) : im_(im), cell_(cell) {}
  absl::Status Run();

 private:
  absl::StatusOr<ValueRef> E(std::string op, std::vector<ValueRef> ins, const std::string& tag) {
    return im_.Emit(std::move(op), std::move(ins), absl::StrCat(base_, "/", tag));
  }
  ValueRef C(Tensor t, const std::string& tag) {
    return im_.ConstNode(std::make_shared<const Tensor>(std::move(t)),
                         absl::StrCat(base_, "/", tag));
  }
  absl::StatusOr<ValueRef> Add(ValueRef a, ValueRef b, const std::string& tag) {
    return E("ElementWiseAdd", {a, b}, tag);
  }
  absl::StatusOr<ValueRef> Mul(ValueRef a, ValueRef b, const std::string& tag) {
    return E("ElementWiseMultiply", {a, b}, tag);
  }
  absl::StatusOr<ValueRef> Reshape(ValueRef x, const Dims& d, const std::string& tag) {
    return E("Reshape", {x, im_.ShapeParam(std::vector<int64_t>(d.begin(), d.end()))}, tag);
  }
  // Splits x [B, sum(sizes)] along dim 1.
  absl::StatusOr<std::vector<ValueRef>> Split(ValueRef x, const std::vector<int64_t>& sizes,
                                              const std::string& tag) {
    EGRET_ASSIGN_OR_RETURN(auto id,
                           im_.EmitNode("Split", {x, im_.IntConst(1), im_.ShapeParam(sizes)},
                                        absl::StrCat(base_, "/", tag)));
    std::vector<ValueRef> out;
    for (size_t k = 0; k < sizes.size(); ++k) out.push_back(ValueRef{id, static_cast<uint32_t>(k)});
    return out;
  }
  // Initial state input k ([D,B,H], or [B,D,H] in layout 1) for direction d, as [B,H].
  absl::StatusOr<std::optional<ValueRef>> Initial(int k, int d, const std::string& tag);
  // One time step; h and c (LSTM) are the state before it, empty at the start.
  absl::Status Step(int d, int t, ValueRef xw, std::optional<ValueRef>& h,
                    std::optional<ValueRef>& c);
  // Concatenates [B,H] pieces along dim 0 and reshapes to dims.
  absl::StatusOr<ValueRef> Stack(const std::vector<ValueRef>& parts, const Dims& dims,
                                 const std::string& tag);

  Importer& im_;
  Cell cell_;
  std::string base_;
  int64_t seq_ = 0, batch_ = 0, hidden_ = 0, gates_ = 0;
  int layout_ = 0;
  const Tensor* w_ = nullptr;
  const Tensor* r_ = nullptr;
  const Tensor* b_ = nullptr;
  const Tensor* p_ = nullptr;
  bool linear_before_reset_ = false;
  // Per direction: recurrent weights and constants the step needs.
  ValueRef rec_;         // R_d [G*H, H] (GRU: the z and r rows)
  ValueRef rec_h_;       // GRU: R_d's h rows [H, H]
  ValueRef rec_h_bias_;  // GRU with linear_before_reset: Rb_h [H]
  bool has_rec_h_bias_ = false;
  std::optional<ValueRef> peep_[3];  // LSTM: P_i, P_o, P_f [H]
};

absl::StatusOr<std::optional<ValueRef>> Unroller::Initial(int k, int d, const std::string& tag) {
  if (!im_.Has(k)) return std::optional<ValueRef>();
  const Value& v = im_.In(k);
  const int64_t dirs = v.type.rank() == 3 ? v.type.dims[layout_ == 0 ? 0 : 1] : -1;
  const Dims want = layout_ == 0 ? Dims{dirs, batch_, hidden_} : Dims{batch_, dirs, hidden_};
  if (v.type.dims != want || dirs <= d) {
    return absl::InvalidArgumentError(
        absl::StrFormat("input %d has dims %s", k, DimsStr(v.type.dims)));
  }
  EGRET_ASSIGN_OR_RETURN(auto x, im_.Get(im_.InName(k), kPlain));
  if (dirs > 1) {
    std::vector<int64_t> begin = {0, 0, 0}, end(want.begin(), want.end()), stride = {1, 1, 1};
    begin[layout_] = d;
    end[layout_] = d + 1;
    EGRET_ASSIGN_OR_RETURN(
        x, E("StridedSlice", {x, im_.IntsConst(begin), im_.IntsConst(end), im_.IntsConst(stride)},
             absl::StrCat(tag, "_slice")));
  }
  EGRET_ASSIGN_OR_RETURN(x, Reshape(x, {batch_, hidden_}, tag));
  return std::optional<ValueRef>(x);
}

absl::StatusOr<ValueRef> Unroller::Stack(const std::vector<ValueRef>& parts, const Dims& dims,
                                         const std::string& tag) {
  ValueRef x = parts[0];
  if (parts.size() > 1) {
    std::vector<ValueRef> ins = {im_.IntConst(0)};
    ins.insert(ins.end(), parts.begin(), parts.end());
    EGRET_ASSIGN_OR_RETURN(x, E("Concat", ins, absl::StrCat(tag, "_concat")));
  }
  return Reshape(x, dims, tag);
}

absl::Status Unroller::Step(int d, int t, ValueRef xw, std::optional<ValueRef>& h,
                            std::optional<ValueRef>& c) {
  const std::string s = absl::StrFormat("d%d/t%d/", d, t);
  auto tag = [&](const std::string& what) { return absl::StrCat(s, what); };
  const int64_t hs = hidden_;
  if (cell_ == Cell::kGru) {
    // z, r = sigmoid(x Wzr + h Rzr + b); h~ = tanh(x Wh + (r h) Rh + b), or
    // tanh(x Wh + r (h Rh + Rbh) + Wbh) with linear_before_reset; H = h~ + z (h - h~).
    EGRET_ASSIGN_OR_RETURN(auto parts, Split(xw, {2 * hs, hs}, tag("x")));
    ValueRef zr = parts[0], hx = parts[1];
    if (h) {
      EGRET_ASSIGN_OR_RETURN(auto hr, E("FullyConnected", {*h, rec_}, tag("hzr")));
      EGRET_ASSIGN_OR_RETURN(zr, Add(zr, hr, tag("zr_pre")));
    }
    EGRET_ASSIGN_OR_RETURN(zr, E("Sigmoid", {zr}, tag("zr")));
    EGRET_ASSIGN_OR_RETURN(auto zr2, Split(zr, {hs, hs}, tag("z")));
    ValueRef z = zr2[0], r = zr2[1];
    std::optional<ValueRef> rec;
    if (h && linear_before_reset_) {
      std::vector<ValueRef> ins = {*h, rec_h_};
      if (has_rec_h_bias_) ins.push_back(rec_h_bias_);
      EGRET_ASSIGN_OR_RETURN(auto hh, E("FullyConnected", ins, tag("hh")));
      EGRET_ASSIGN_OR_RETURN(rec, Mul(r, hh, tag("rhh")));
    } else if (h) {
      EGRET_ASSIGN_OR_RETURN(auto rh, Mul(r, *h, tag("rh")));
      EGRET_ASSIGN_OR_RETURN(rec, E("FullyConnected", {rh, rec_h_}, tag("hh")));
    } else if (linear_before_reset_ && has_rec_h_bias_) {
      EGRET_ASSIGN_OR_RETURN(rec, Mul(r, rec_h_bias_, tag("rhh")));
    }
    if (rec) {
      EGRET_ASSIGN_OR_RETURN(hx, Add(hx, *rec, tag("h_pre")));
    }
    EGRET_ASSIGN_OR_RETURN(auto cand, E("Tanh", {hx}, tag("h_cand")));
    if (h) {
      EGRET_ASSIGN_OR_RETURN(auto diff, E("ElementWiseSubtract", {*h, cand}, tag("h_diff")));
      EGRET_ASSIGN_OR_RETURN(auto zd, Mul(z, diff, tag("zh")));
      EGRET_ASSIGN_OR_RETURN(h, Add(cand, zd, tag("h")));
    } else {
      EGRET_ASSIGN_OR_RETURN(auto zc, Mul(z, cand, tag("zh")));
      EGRET_ASSIGN_OR_RETURN(h, E("ElementWiseSubtract", {cand, zc}, tag("h")));
    }
    return absl::OkStatus();
  }
  ValueRef pre = xw;
  if (h) {
    EGRET_ASSIGN_OR_RETURN(auto hr, E("FullyConnected", {*h, rec_}, tag("hr")));
    EGRET_ASSIGN_OR_RETURN(pre, Add(xw, hr, tag("pre")));
  }
  if (cell_ == Cell::kRnn) {
    EGRET_ASSIGN_OR_RETURN(h, E("Tanh", {pre}, tag("h")));
    return absl::OkStatus();
  }
  // LSTM, gates i, o, f, c: C = f C + i tanh(c); H = o tanh(C), with
  // peepholes P_i C and P_f C (old C) and P_o C (new C) added before sigmoid.
  EGRET_ASSIGN_OR_RETURN(auto g, Split(pre, {hs, hs, hs, hs}, tag("gates")));
  ValueRef i = g[0], o = g[1], f = g[2], cg = g[3];
  if (c && peep_[0]) {
    EGRET_ASSIGN_OR_RETURN(auto pi, Mul(*peep_[0], *c, tag("pi")));
    EGRET_ASSIGN_OR_RETURN(i, Add(i, pi, tag("i_pre")));
  }
  if (c && peep_[2]) {
    EGRET_ASSIGN_OR_RETURN(auto pf, Mul(*peep_[2], *c, tag("pf")));
    EGRET_ASSIGN_OR_RETURN(f, Add(f, pf, tag("f_pre")));
  }
  EGRET_ASSIGN_OR_RETURN(i, E("Sigmoid", {i}, tag("i")));
  EGRET_ASSIGN_OR_RETURN(cg, E("Tanh", {cg}, tag("c_cand")));
  EGRET_ASSIGN_OR_RETURN(auto ic, Mul(i, cg, tag("ic")));
  if (c) {
    EGRET_ASSIGN_OR_RETURN(f, E("Sigmoid", {f}, tag("f")));
    EGRET_ASSIGN_OR_RETURN(auto fc, Mul(f, *c, tag("fc")));
    EGRET_ASSIGN_OR_RETURN(c, Add(fc, ic, tag("c")));
  } else {
    c = ic;
  }
  if (peep_[1]) {
    EGRET_ASSIGN_OR_RETURN(auto po, Mul(*peep_[1], *c, tag("po")));
    EGRET_ASSIGN_OR_RETURN(o, Add(o, po, tag("o_pre")));
  }
  EGRET_ASSIGN_OR_RETURN(o, E("Sigmoid", {o}, tag("o")));
  EGRET_ASSIGN_OR_RETURN(auto tc, E("Tanh", {*c}, tag("tanh_c")));
  EGRET_ASSIGN_OR_RETURN(h, Mul(o, tc, tag("h")));
  return absl::OkStatus();
}

absl::Status Unroller::Run() {
  Importer& im = im_;
  gates_ = cell_ == Cell::kLstm ? 4 : cell_ == Cell::kGru ? 3 : 1;
  base_ = im.Out(0).empty() ? im.cur_->name() : im.Out(0);
  const Value& x = im.In(0);
  if (x.type.rank() != 3) return absl::InvalidArgumentError("X must have rank 3");
  if (!IsFloat(x.type.dtype)) return Unmapped("X is not a float tensor");
  layout_ = static_cast<int>(im.AttrInt("layout", 0));
  if (layout_ != 0 && layout_ != 1) return absl::InvalidArgumentError("layout must be 0 or 1");
  seq_ = x.type.dims[layout_ == 0 ? 0 : 1];
  batch_ = x.type.dims[layout_ == 0 ? 1 : 0];
  const int64_t in = x.type.dims[2];
  const std::string direction = im.AttrStr("direction", "forward");
  std::vector<bool> reverse;
  if (direction == "forward") {
    reverse = {false};
  } else if (direction == "reverse") {
    reverse = {true};
  } else if (direction == "bidirectional") {
    reverse = {false, true};
  } else {
    return absl::InvalidArgumentError(absl::StrCat("unknown direction '", direction, "'"));
  }
  const int64_t dirs = static_cast<int64_t>(reverse.size());
  for (int k = 1; k <= 2; ++k) {
    if (!im.In(k).constant) return Unmapped(k == 1 ? "W is not a constant" : "R is not a constant");
  }
  w_ = im.In(1).constant.get();
  r_ = im.In(2).constant.get();
  hidden_ = im.AttrInt("hidden_size", r_->type().rank() == 3 ? r_->type().dims[2] : 0);
  if (hidden_ < 0 || hidden_ > kMaxElements) {
    return absl::InvalidArgumentError(absl::StrCat("hidden_size ", hidden_, " is out of range"));
  }
  const int64_t gh = gates_ * hidden_;
  if (w_->type().dims != Dims{dirs, gh, in} || r_->type().dims != Dims{dirs, gh, hidden_} ||
      w_->type().dtype != x.type.dtype || r_->type().dtype != x.type.dtype) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "W %s and R %s do not fit X %s, %d directions and hidden_size %d", w_->type().ToString(),
        r_->type().ToString(), x.type.ToString(), dirs, hidden_));
  }
  if (im.Has(3)) {
    if (!im.In(3).constant) return Unmapped("B is not a constant");
    b_ = im.In(3).constant.get();
    if (b_->type().dims != Dims{dirs, 2 * gh}) {
      return absl::InvalidArgumentError(absl::StrFormat("B has dims %s", DimsStr(b_->type().dims)));
    }
  }
  if (im.Has(4)) {
    EGRET_ASSIGN_OR_RETURN(auto lens, im.ConstInts(4, "sequence_lens"));
    for (int64_t l : lens) {
      if (l != seq_) return Unmapped("sequence_lens differ from the sequence length");
    }
  }
  if (cell_ == Cell::kLstm && im.Has(7)) {
    if (!im.In(7).constant) return Unmapped("P is not a constant");
    p_ = im.In(7).constant.get();
    if (p_->type().dims != Dims{dirs, 3 * hidden_}) {
      return absl::InvalidArgumentError(absl::StrFormat("P has dims %s", DimsStr(p_->type().dims)));
    }
  }
  if (const auto* a = im.Attr("activations")) {
    static const std::vector<std::string> kLstm = {"sigmoid", "tanh", "tanh"},
                                          kGru = {"sigmoid", "tanh"}, kRnn = {"tanh"};
    const auto& want = cell_ == Cell::kLstm ? kLstm : cell_ == Cell::kGru ? kGru : kRnn;
    bool same = a->strings_size() == static_cast<int>(want.size() * dirs);
    for (int k = 0; same && k < a->strings_size(); ++k) {
      same = absl::AsciiStrToLower(a->strings(k)) == want[k % want.size()];
    }
    if (!same) return Unmapped("activations other than the defaults");
  }
  if (im.Attr("clip") != nullptr) return Unmapped("clip");
  if (im.AttrInt("input_forget", 0) != 0) return Unmapped("input_forget");
  linear_before_reset_ = im.AttrInt("linear_before_reset", 0) != 0;
  if (seq_ < 1 || seq_ > kMaxUnrollSteps) {
    return Unmapped(
        absl::StrFormat("sequence length %d (unrolled up to %d steps)", seq_, kMaxUnrollSteps));
  }

  // X as [S*B, I], time-major.
  EGRET_ASSIGN_OR_RETURN(auto xs, im.Get(im.InName(0), kPlain));
  if (layout_ == 1) {
    EGRET_ASSIGN_OR_RETURN(xs, E("Transpose", {xs, im.ShapeParam({1, 0, 2})}, "x_tm"));
  }
  EGRET_ASSIGN_OR_RETURN(xs, Reshape(xs, {seq_ * batch_, in}, "x2d"));

  const DType dt = x.type.dtype;
  std::vector<std::vector<ValueRef>> ys(dirs), last_h(1), last_c(1);
  for (int d = 0; d < dirs; ++d) {
    const std::string dtag = absl::StrFormat("d%d/", d);
    // Input bias Wb + Rb (GRU: Rb_h only without linear_before_reset).
    std::vector<double> bias(gh, 0.0), rec_h_bias(hidden_, 0.0);
    if (b_) {
      for (int64_t j = 0; j < gh; ++j) {
        const double wb = b_->GetReal(d * 2 * gh + j), rb = b_->GetReal(d * 2 * gh + gh + j);
        if (cell_ == Cell::kGru && j >= 2 * hidden_ && linear_before_reset_) {
          bias[j] = wb;
          rec_h_bias[j - 2 * hidden_] = rb;
        } else {
          bias[j] = wb + rb;
        }
      }
    }
    EGRET_ASSIGN_OR_RETURN(auto xw,
                           E("FullyConnected",
                             {xs, C(Elements(*w_, d * gh * in, {gh, in}), dtag + "W"),
                              C(Tensor::FromValues(TensorType(dt, {gh}), bias), dtag + "bias")},
                             dtag + "xw"));
    const int64_t rows = cell_ == Cell::kGru ? 2 * hidden_ : gh;
    rec_ = C(Elements(*r_, d * gh * hidden_, {rows, hidden_}), dtag + "R");
    if (cell_ == Cell::kGru) {
      rec_h_ = C(Elements(*r_, (d * gh + rows) * hidden_, {hidden_, hidden_}), dtag + "Rh");
      has_rec_h_bias_ = b_ != nullptr && linear_before_reset_;
      if (has_rec_h_bias_) {
        rec_h_bias_ = C(Tensor::FromValues(TensorType(dt, {hidden_}), rec_h_bias), dtag + "Rbh");
      }
    }
    for (int k = 0; k < 3; ++k) {
      peep_[k].reset();
      if (p_) peep_[k] = C(Elements(*p_, (d * 3 + k) * hidden_, {hidden_}), dtag + "P");
    }
    EGRET_ASSIGN_OR_RETURN(auto h, Initial(5, d, dtag + "h0"));
    std::optional<ValueRef> c;
    if (cell_ == Cell::kLstm) {
      EGRET_ASSIGN_OR_RETURN(c, Initial(6, d, dtag + "c0"));
    }
    ys[d].resize(seq_);
    for (int64_t t = 0; t < seq_; ++t) {
      const int64_t tt = reverse[d] ? seq_ - 1 - t : t;
      ValueRef xt = xw;
      if (seq_ > 1) {
        EGRET_ASSIGN_OR_RETURN(xt, E("StridedSlice",
                                     {xw, im.IntsConst({tt * batch_, 0}),
                                      im.IntsConst({(tt + 1) * batch_, gh}), im.IntsConst({1, 1})},
                                     absl::StrFormat("d%d/t%d/xw", d, tt)));
      }
      EGRET_RETURN_IF_ERROR(Step(d, static_cast<int>(tt), xt, h, c));
      ys[d][tt] = *h;
    }
    last_h[0].push_back(*h);
    if (c) last_c[0].push_back(*c);
  }

  // Y [S,D,B,H] (layout 1: [B,S,D,H]); Y_h, Y_c [D,B,H] (layout 1: [B,D,H]).
  if (im.OutputUsed(0)) {
    std::vector<ValueRef> per_dir;
    for (int d = 0; d < dirs; ++d) {
      EGRET_ASSIGN_OR_RETURN(auto y,
                             Stack(ys[d], {seq_, 1, batch_, hidden_}, absl::StrFormat("d%d/y", d)));
      per_dir.push_back(y);
    }
    ValueRef y = per_dir[0];
    if (dirs > 1) {
      EGRET_ASSIGN_OR_RETURN(y, E("Concat", {im.IntConst(1), per_dir[0], per_dir[1]}, "y"));
    }
    if (layout_ == 1) {
      EGRET_ASSIGN_OR_RETURN(y, E("Transpose", {y, im.ShapeParam({2, 0, 1, 3})}, "y_bm"));
    }
    im.SetValue(im.Out(0), y, kPlain);
  }
  for (int k = 1; k <= 2; ++k) {
    if (!im.OutputUsed(k)) continue;
    if (k == 2 && cell_ != Cell::kLstm) continue;
    EGRET_ASSIGN_OR_RETURN(auto s, Stack(k == 1 ? last_h[0] : last_c[0], {dirs, batch_, hidden_},
                                         k == 1 ? "y_h" : "y_c"));
    if (layout_ == 1) {
      EGRET_ASSIGN_OR_RETURN(
          s, E("Transpose", {s, im.ShapeParam({1, 0, 2})}, k == 1 ? "y_h_bm" : "y_c_bm"));
    }
    im.SetValue(im.Out(k), s, kPlain);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status Importer::DoLstm() { return Unroller(*this, Cell::kLstm).Run(); }
absl::Status Importer::DoGru() { return Unroller(*this, Cell::kGru).Run(); }
absl::Status Importer::DoRnn() { return Unroller(*this, Cell::kRnn).Run(); }

void RegisterRecurrentHandlers(HandlerTable& t) {
  t["LSTM"] = [](Importer& im) { return im.DoLstm(); };
  t["GRU"] = [](Importer& im) { return im.DoGru(); };
  t["RNN"] = [](Importer& im) { return im.DoRnn(); };
}

}  // namespace egret::onnx_import
