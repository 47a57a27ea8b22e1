// ONNX recurrent layers: RNN, GRU and LSTM, one layer over a whole sequence,
// forward, reverse or bidirectional.
//
// The three ops share everything but their cell: the operands (X, W, R, B,
// sequence_lens, initial_h, and LSTM's initial_c and P), the direction,
// layout, clip and activation attributes, the time loop and the outputs
// (Y, Y_h, and LSTM's Y_c). Each time step of each batch row starts from
// GateStep, the affine part of every gate:
//
//   xw[g] = W[g] x_t + Wb[g]        hr[g] = R[g] h_{t-1} + Rb[g]
//
// kept apart because GRU's hidden gate uses R h_{t-1} on its own. The cells
// then follow the ONNX equations (gate order: RNN i; GRU z, r, h; LSTM i, o,
// f, c). `clip` bounds every activation input (the gate pre-activations, as
// ONNX Runtime does; not the cell state before h). A batch row with
// sequence_lens[b] = L runs L steps (a reverse direction runs t = L-1 .. 0);
// Y is zero past L, and Y_h / Y_c hold the state after the last step (zero
// when L = 0).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "egret/executor/kernels/onnx/onnx_kernels_internal.h"
#include "egret/support/status_macros.h"

namespace egret::backend_internal {
namespace {

using Result = absl::StatusOr<std::vector<Tensor>>;

// ---------------------------------------------------------------------------
// Activations: the names of the "activations" attribute. Those that take
// alpha / beta consume the next values of activation_alpha / activation_beta
// in order; when the list runs out they take ONNX's defaults.

enum class ActKind {
  kRelu,
  kTanh,
  kSigmoid,
  kAffine,
  kLeakyRelu,
  kThresholdedRelu,
  kScaledTanh,
  kHardSigmoid,
  kElu,
  kSoftsign,
  kSoftplus,
};

struct ActDef {
  const char* name;  // lower case
  ActKind kind;
  bool uses_alpha, uses_beta;
  double alpha, beta;  // defaults
};

constexpr ActDef kActDefs[] = {
    {"relu", ActKind::kRelu, false, false, 0, 0},
    {"tanh", ActKind::kTanh, false, false, 0, 0},
    {"sigmoid", ActKind::kSigmoid, false, false, 0, 0},
    {"affine", ActKind::kAffine, true, true, 1.0, 0.0},
    {"leakyrelu", ActKind::kLeakyRelu, true, false, 0.01, 0},
    {"thresholdedrelu", ActKind::kThresholdedRelu, true, false, 1.0, 0},
    {"scaledtanh", ActKind::kScaledTanh, true, true, 1.0, 1.0},
    {"hardsigmoid", ActKind::kHardSigmoid, true, true, 0.2, 0.5},
    {"elu", ActKind::kElu, true, false, 1.0, 0},
    {"softsign", ActKind::kSoftsign, false, false, 0, 0},
    {"softplus", ActKind::kSoftplus, false, false, 0, 0},
};

struct Activation {
  ActKind kind = ActKind::kTanh;
  double alpha = 0, beta = 0;

  double operator()(double x) const {
    switch (kind) {
      case ActKind::kRelu:
        return std::max(x, 0.0);
      case ActKind::kTanh:
        return std::tanh(x);
      case ActKind::kSigmoid:
        return 1.0 / (1.0 + std::exp(-x));
      case ActKind::kAffine:
        return alpha * x + beta;
      case ActKind::kLeakyRelu:
        return x >= 0 ? x : alpha * x;
      case ActKind::kThresholdedRelu:
        return x >= alpha ? x : 0.0;
      case ActKind::kScaledTanh:
        return alpha * std::tanh(beta * x);
      case ActKind::kHardSigmoid:
        return std::min(std::max(alpha * x + beta, 0.0), 1.0);
      case ActKind::kElu:
        return x >= 0 ? x : alpha * (std::exp(x) - 1.0);
      case ActKind::kSoftsign:
        return x / (1.0 + std::abs(x));
      case ActKind::kSoftplus:
        return std::log1p(std::exp(x));
    }
    return x;
  }
};

// ---------------------------------------------------------------------------
// The layer: operands and attributes common to the three ops.

enum class CellKind { kRnn, kGru, kLstm };

struct CellInfo {
  int gates;                              // rows of W per hidden unit
  int outputs;                            // Y, Y_h (, Y_c)
  std::vector<const char*> default_acts;  // per direction
};

CellInfo Info(CellKind kind) {
  switch (kind) {
    case CellKind::kRnn:
      return {1, 2, {"tanh"}};
    case CellKind::kGru:
      return {3, 2, {"sigmoid", "tanh"}};
    case CellKind::kLstm:
      return {4, 3, {"sigmoid", "tanh", "tanh"}};
  }
  return {1, 2, {"tanh"}};
}

struct Layer {
  CellKind kind;
  int gates = 1;
  int64_t seq = 0, batch = 0, input = 0, hidden = 0;
  int dirs = 1;
  bool reverse = false;      // direction "reverse" (one direction, run backwards)
  bool batch_first = false;  // layout 1: X [batch, seq, input], Y [batch, seq, dirs, hidden]
  double clip = 0;           // 0: none
  bool input_forget = false;
  bool linear_before_reset = false;
  std::vector<double> x, w, r, b, h0, c0, p;  // b, h0, c0, p: zeros when absent
  std::vector<int64_t> lens;                  // per batch row
  std::vector<Activation> acts;               // acts_per_dir * dirs

  int acts_per_dir() const { return static_cast<int>(acts.size()) / dirs; }
  const Activation& act(int d, int i) const { return acts[d * acts_per_dir() + i]; }
  double Clip(double v) const { return clip > 0 ? std::min(std::max(v, -clip), clip) : v; }

  // Element offsets by ONNX layout.
  int64_t XAt(int64_t t, int64_t bi) const {
    return (batch_first ? bi * seq + t : t * batch + bi) * input;
  }
  int64_t YAt(int64_t t, int d, int64_t bi) const {
    return (batch_first ? (bi * seq + t) * dirs + d : (t * dirs + d) * batch + bi) * hidden;
  }
  // Y_h, Y_c, initial_h and initial_c.
  int64_t StateAt(int d, int64_t bi) const {
    return (batch_first ? bi * dirs + d : d * batch + bi) * hidden;
  }
  Dims YDims() const {
    return batch_first ? Dims{batch, seq, dirs, hidden} : Dims{seq, dirs, batch, hidden};
  }
  Dims StateDims() const {
    return batch_first ? Dims{batch, dirs, hidden} : Dims{dirs, batch, hidden};
  }
};

absl::Status ParseActivations(const KernelContext& c, const OnnxArgs& a, const CellInfo& info,
                              Layer& L) {
  std::vector<std::string> names;
  const std::string attr = a.Str("activations", "");
  if (attr.empty()) {
    for (int d = 0; d < L.dirs; ++d) {
      for (const char* n : info.default_acts) names.emplace_back(n);
    }
  } else {
    names = absl::StrSplit(attr, ',');
    const size_t per_dir = info.default_acts.size();
    if (names.size() == per_dir && L.dirs == 2) {
      names.insert(names.end(), names.begin(), names.end());  // same for both directions
    }
    if (names.size() != per_dir * L.dirs) {
      return KernelError(c, absl::StrFormat("activations lists %d functions, expected %d",
                                            names.size(), per_dir * L.dirs));
    }
  }
  const std::vector<double> alphas = a.Floats("activation_alpha").value_or(std::vector<double>{});
  const std::vector<double> betas = a.Floats("activation_beta").value_or(std::vector<double>{});
  size_t next_alpha = 0, next_beta = 0;
  for (const std::string& raw : names) {
    const std::string name = absl::AsciiStrToLower(raw);
    const ActDef* def = nullptr;
    for (const ActDef& d : kActDefs) {
      if (name == d.name) def = &d;
    }
    if (def == nullptr) return KernelError(c, absl::StrFormat("unknown activation '%s'", raw));
    Activation act{def->kind, def->alpha, def->beta};
    if (def->uses_alpha && next_alpha < alphas.size()) act.alpha = alphas[next_alpha++];
    if (def->uses_beta && next_beta < betas.size()) act.beta = betas[next_beta++];
    L.acts.push_back(act);
  }
  return absl::OkStatus();
}

// Reads optional input k, which must have `dims`, or zeros of that size.
absl::StatusOr<std::vector<double>> OptionalInput(const KernelContext& c, const OnnxArgs& a, int k,
                                                  const char* name, const Dims& dims) {
  const Tensor* t = a.Input(k);
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  if (t == nullptr) return std::vector<double>(static_cast<size_t>(n), 0.0);
  if (t->type().dims != dims) {
    TensorType want = t->type();
    want.dims = dims;
    return KernelError(
        c, absl::StrFormat("%s is %s, expected %s", name, t->type().ToString(), want.ToString()));
  }
  return ReadReals(*t);
}

absl::StatusOr<Layer> ParseLayer(const KernelContext& c, CellKind kind) {
  const OnnxArgs a(c);
  const CellInfo info = Info(kind);
  Layer L;
  L.kind = kind;
  L.gates = info.gates;
  const Tensor* x = a.Input(0);
  const Tensor* w = a.Input(1);
  const Tensor* r = a.Input(2);
  if (x == nullptr || w == nullptr || r == nullptr) return KernelError(c, "needs X, W and R");
  const Dims& xd = x->type().dims;
  const Dims& wd = w->type().dims;
  const Dims& rd = r->type().dims;
  if (xd.size() != 3 || wd.size() != 3 || rd.size() != 3) {
    return KernelError(c, "X, W and R must have rank 3");
  }

  const std::string direction = a.Str("direction", "forward");
  if (direction == "forward" || direction == "reverse") {
    L.dirs = 1;
    L.reverse = direction == "reverse";
  } else if (direction == "bidirectional") {
    L.dirs = 2;
  } else {
    return KernelError(c, absl::StrFormat("unknown direction '%s'", direction));
  }
  L.batch_first = a.Int("layout", 0) != 0;
  L.seq = L.batch_first ? xd[1] : xd[0];
  L.batch = L.batch_first ? xd[0] : xd[1];
  L.input = xd[2];
  L.hidden = a.Int("hidden_size", rd[2]);
  const int64_t rows = L.gates * L.hidden;
  if (wd != Dims{L.dirs, rows, L.input} || rd != Dims{L.dirs, rows, L.hidden}) {
    return KernelError(
        c, absl::StrFormat("W %s and R %s do not fit %d direction(s), %d gate(s), hidden_size %d "
                           "and input size %d",
                           w->type().ToString(), r->type().ToString(), L.dirs, L.gates, L.hidden,
                           L.input));
  }
  L.x = ReadReals(*x);
  L.w = ReadReals(*w);
  L.r = ReadReals(*r);
  EGRET_ASSIGN_OR_RETURN(L.b, OptionalInput(c, a, 3, "B", Dims{L.dirs, 2 * rows}));
  if (const Tensor* lens = a.Input(4)) {
    if (lens->type().dims != Dims{L.batch}) {
      return KernelError(c, absl::StrFormat("sequence_lens is %s, expected [%d]",
                                            lens->type().ToString(), L.batch));
    }
    L.lens = ReadInts(*lens);
    for (int64_t len : L.lens) {
      if (len < 0 || len > L.seq) {
        return KernelError(c, absl::StrFormat("sequence length %d is outside [0, %d]", len, L.seq));
      }
    }
  } else {
    L.lens.assign(static_cast<size_t>(L.batch), L.seq);
  }
  EGRET_ASSIGN_OR_RETURN(L.h0, OptionalInput(c, a, 5, "initial_h", L.StateDims()));
  if (kind == CellKind::kLstm) {
    EGRET_ASSIGN_OR_RETURN(L.c0, OptionalInput(c, a, 6, "initial_c", L.StateDims()));
    EGRET_ASSIGN_OR_RETURN(L.p, OptionalInput(c, a, 7, "P", Dims{L.dirs, 3 * L.hidden}));
    L.input_forget = a.Int("input_forget", 0) != 0;
  }
  if (kind == CellKind::kGru) L.linear_before_reset = a.Int("linear_before_reset", 0) != 0;
  L.clip = std::max(a.Float("clip", 0.0), 0.0);
  EGRET_RETURN_IF_ERROR(ParseActivations(c, a, info, L));
  if (static_cast<int>(c.outputs.size()) > info.outputs) {
    return KernelError(
        c, absl::StrFormat("has %d outputs, at most %d", c.outputs.size(), info.outputs));
  }
  return L;
}

// ---------------------------------------------------------------------------
// One time step.

// The state a direction carries from step to step for one batch row.
struct State {
  std::vector<double> h, c;  // c: LSTM only
};

// out[j] = M[row0 + j] . v + bias[row0 + j] for j < n, M row-major with
// v.size() columns.
void MatVec(const double* m, const double* bias, const std::vector<double>& v, int64_t row0,
            int64_t n, double* out) {
  const int64_t cols = static_cast<int64_t>(v.size());
  for (int64_t j = 0; j < n; ++j) {
    const double* row = m + (row0 + j) * cols;
    double s = bias[row0 + j];
    for (int64_t k = 0; k < cols; ++k) s += row[k] * v[k];
    out[j] = s;
  }
}

// The affine part of every gate for direction d at one step: xw = W x + Wb
// and hr = R h + Rb, gate g at [g * hidden, (g + 1) * hidden).
struct GateInputs {
  std::vector<double> xw, hr;
};

void GateStep(const Layer& L, int d, const std::vector<double>& x, const State& s, GateInputs& g) {
  const int64_t rows = L.gates * L.hidden;
  const double* w = L.w.data() + d * rows * L.input;
  const double* r = L.r.data() + d * rows * L.hidden;
  const double* wb = L.b.data() + d * 2 * rows;
  const double* rb = wb + rows;
  g.xw.resize(rows);
  g.hr.resize(rows);
  MatVec(w, wb, x, 0, rows, g.xw.data());
  MatVec(r, rb, s.h, 0, rows, g.hr.data());
}

// Ht = f(xw + hr)
void RnnCell(const Layer& L, int d, const GateInputs& g, State& s) {
  const Activation& f = L.act(d, 0);
  for (int64_t j = 0; j < L.hidden; ++j) s.h[j] = f(L.Clip(g.xw[j] + g.hr[j]));
}

// zt = f(xw_z + hr_z), rt = f(xw_r + hr_r),
// ht = g(xw_h + R_h (rt . Ht-1) + Rb_h)    (linear_before_reset = 0)
// ht = g(xw_h + rt . (R_h Ht-1 + Rb_h))    (linear_before_reset = 1)
// Ht = (1 - zt) . ht + zt . Ht-1
void GruCell(const Layer& L, int d, const GateInputs& g, State& s) {
  const Activation& f = L.act(d, 0);
  const Activation& act_g = L.act(d, 1);
  const int64_t H = L.hidden;
  std::vector<double> z(H), r(H), rh(H), hidden_in(H);
  for (int64_t j = 0; j < H; ++j) {
    z[j] = f(L.Clip(g.xw[j] + g.hr[j]));
    r[j] = f(L.Clip(g.xw[H + j] + g.hr[H + j]));
  }
  if (L.linear_before_reset) {
    for (int64_t j = 0; j < H; ++j) hidden_in[j] = r[j] * g.hr[2 * H + j];
  } else {
    for (int64_t j = 0; j < H; ++j) rh[j] = r[j] * s.h[j];
    const int64_t rows = 3 * H;
    const double* rw = L.r.data() + d * rows * H;
    const double* rb = L.b.data() + d * 2 * rows + rows;
    MatVec(rw, rb, rh, 2 * H, H, hidden_in.data());
  }
  for (int64_t j = 0; j < H; ++j) {
    const double h_tilde = act_g(L.Clip(g.xw[2 * H + j] + hidden_in[j]));
    s.h[j] = (1.0 - z[j]) * h_tilde + z[j] * s.h[j];
  }
}

// it = f(xw_i + hr_i + Pi . Ct-1), ft = f(xw_f + hr_f + Pf . Ct-1)
// (ft = 1 - it with input_forget), ct = g(xw_c + hr_c),
// Ct = ft . Ct-1 + it . ct, ot = f(xw_o + hr_o + Po . Ct), Ht = ot . h(Ct)
void LstmCell(const Layer& L, int d, const GateInputs& g, State& s) {
  const Activation& f = L.act(d, 0);
  const Activation& act_g = L.act(d, 1);
  const Activation& act_h = L.act(d, 2);
  const int64_t H = L.hidden;
  const double* p = L.p.data() + d * 3 * H;  // Pi, Po, Pf
  for (int64_t j = 0; j < H; ++j) {
    const double c_prev = s.c[j];
    const double i = f(L.Clip(g.xw[j] + g.hr[j] + p[j] * c_prev));
    const double forget =
        L.input_forget ? 1.0 - i
                       : f(L.Clip(g.xw[2 * H + j] + g.hr[2 * H + j] + p[2 * H + j] * c_prev));
    const double cell = act_g(L.Clip(g.xw[3 * H + j] + g.hr[3 * H + j]));
    const double c_new = forget * c_prev + i * cell;
    const double o = f(L.Clip(g.xw[H + j] + g.hr[H + j] + p[H + j] * c_new));
    s.c[j] = c_new;
    s.h[j] = o * act_h(c_new);
  }
}

// ---------------------------------------------------------------------------
// The time loop.

Result RunLayer(const KernelContext& c, CellKind kind) {
  EGRET_ASSIGN_OR_RETURN(const Layer L, ParseLayer(c, kind));
  const int64_t H = L.hidden;
  std::vector<double> y(static_cast<size_t>(L.seq * L.dirs * L.batch * H), 0.0);
  std::vector<double> yh(static_cast<size_t>(L.dirs * L.batch * H), 0.0);
  std::vector<double> yc(yh.size(), 0.0);
  GateInputs g;
  std::vector<double> x(static_cast<size_t>(L.input));
  for (int d = 0; d < L.dirs; ++d) {
    const bool backwards = L.reverse || d == 1;
    for (int64_t bi = 0; bi < L.batch; ++bi) {
      const int64_t len = L.lens[bi];
      const int64_t at = L.StateAt(d, bi);
      State s;
      s.h.assign(L.h0.begin() + at, L.h0.begin() + at + H);
      if (kind == CellKind::kLstm) s.c.assign(L.c0.begin() + at, L.c0.begin() + at + H);
      for (int64_t step = 0; step < len; ++step) {
        const int64_t t = backwards ? len - 1 - step : step;
        std::copy_n(L.x.begin() + L.XAt(t, bi), L.input, x.begin());
        GateStep(L, d, x, s, g);
        switch (kind) {
          case CellKind::kRnn:
            RnnCell(L, d, g, s);
            break;
          case CellKind::kGru:
            GruCell(L, d, g, s);
            break;
          case CellKind::kLstm:
            LstmCell(L, d, g, s);
            break;
        }
        std::copy(s.h.begin(), s.h.end(), y.begin() + L.YAt(t, d, bi));
      }
      if (len > 0) {
        std::copy(s.h.begin(), s.h.end(), yh.begin() + at);
        if (kind == CellKind::kLstm) std::copy(s.c.begin(), s.c.end(), yc.begin() + at);
      }
    }
  }
  std::vector<Tensor> out;
  const std::vector<double>* values[] = {&y, &yh, &yc};
  for (int k = 0; k < static_cast<int>(c.outputs.size()); ++k) {
    const Dims dims = k == 0 ? L.YDims() : L.StateDims();
    EGRET_ASSIGN_OR_RETURN(Tensor t, OnnxOutput(c, k, dims, *values[k]));
    out.push_back(std::move(t));
  }
  return out;
}

template <CellKind kKind>
Result Recurrent(const KernelContext& c) {
  return RunLayer(c, kKind);
}

}  // namespace

void RegisterOnnxRnnKernels(KernelTable& t) {
  t.emplace("onnx.RNN", Recurrent<CellKind::kRnn>);
  t.emplace("onnx.GRU", Recurrent<CellKind::kGru>);
  t.emplace("onnx.LSTM", Recurrent<CellKind::kLstm>);
}

}  // namespace egret::backend_internal
