// LSTM, GRU and RNN unrolled at import (egret/onnx/import_recurrent.cc),
// checked numerically through the reference executor against a direct
// implementation of ONNX's equations written here, in every direction and
// layout, with and without initial states, biases and peepholes; the same
// models with runtime weights stay opaque and their ONNX kernels
// (egret/executor/kernels/onnx/onnx_rnn.cc) must agree too.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "egret/executor/executor.h"
#include "egret/graph/op_table.h"
#include "egret/onnx/onnx_reader.h"
#include "onnx_builder.h"

namespace egret {
namespace {

using testing::OnnxBuilder;

enum class Cell { kLstm, kGru, kRnn };

int Gates(Cell c) { return c == Cell::kLstm ? 4 : c == Cell::kGru ? 3 : 1; }

std::vector<float> Values(int64_t n, float scale, float phase) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = scale * std::sin(0.7f * static_cast<float>(i) + phase);
  return v;
}

double Sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

struct Config {
  Cell cell;
  std::string direction = "forward";
  int layout = 0;
  bool bias = true, initial_h = true, initial_c = true, peepholes = false;
  bool linear_before_reset = false;
  int64_t seq = 3, batch = 2, input = 3, hidden = 4;
  int dirs() const { return direction == "bidirectional" ? 2 : 1; }
};

std::vector<float> WValues(const Config& c) {
  return Values(c.dirs() * Gates(c.cell) * c.hidden * c.input, 0.5f, 0.1f);
}
std::vector<float> RValues(const Config& c) {
  return Values(c.dirs() * Gates(c.cell) * c.hidden * c.hidden, 0.5f, 0.2f);
}

// The ONNX model of one recurrent node; X (and the initial states, when used)
// are graph inputs, W and R constants or, with `runtime_weights`, graph
// inputs too (then egret keeps the node opaque and runs its ONNX kernel).
std::string Model(const Config& c, bool runtime_weights = false) {
  const int64_t d = c.dirs(), g = Gates(c.cell), h = c.hidden;
  OnnxBuilder b(14);
  b.Input("X", c.layout == 0 ? std::vector<int64_t>{c.seq, c.batch, c.input}
                             : std::vector<int64_t>{c.batch, c.seq, c.input});
  const std::vector<int64_t> state =
      c.layout == 0 ? std::vector<int64_t>{d, c.batch, h} : std::vector<int64_t>{c.batch, d, h};
  if (runtime_weights) {
    b.Input("W", {d, g * h, c.input});
    b.Input("R", {d, g * h, h});
  } else {
    b.Initializer("W", {d, g * h, c.input}, WValues(c));
    b.Initializer("R", {d, g * h, h}, RValues(c));
  }
  std::vector<std::string> ins = {"X", "W", "R", "", "", "", "", ""};
  if (c.bias) {
    b.Initializer("B", {d, 2 * g * h}, Values(d * 2 * g * h, 0.3f, 0.3f));
    ins[3] = "B";
  }
  if (c.initial_h) {
    b.Input("h0", state);
    ins[5] = "h0";
  }
  if (c.cell == Cell::kLstm && c.initial_c) {
    b.Input("c0", state);
    ins[6] = "c0";
  }
  if (c.cell == Cell::kLstm && c.peepholes) {
    b.Initializer("P", {d, 3 * h}, Values(d * 3 * h, 0.4f, 0.4f));
    ins[7] = "P";
  }
  while (ins.back().empty()) ins.pop_back();
  std::vector<std::string> outs = {"Y", "Y_h"};
  if (c.cell == Cell::kLstm) outs.push_back("Y_c");
  const char* op = c.cell == Cell::kLstm ? "LSTM" : c.cell == Cell::kGru ? "GRU" : "RNN";
  auto* n = b.Node(op, ins, outs, "rnn");
  OnnxBuilder::AttrInt(n, "hidden_size", h);
  OnnxBuilder::AttrString(n, "direction", c.direction);
  if (c.layout != 0) OnnxBuilder::AttrInt(n, "layout", c.layout);
  if (c.linear_before_reset) OnnxBuilder::AttrInt(n, "linear_before_reset", 1);
  for (const auto& o : outs) b.Output(o);
  return b.Bytes();
}

const float* Find(const onnx::ModelProto& m, const std::string& name) {
  for (const auto& t : m.graph().initializer()) {
    if (t.name() == name) return t.float_data().data();
  }
  return nullptr;
}

// ONNX's equations, one direction d: x is time-major [S][B][I]; h, c hold
// [B][H] initial states and are left holding the final ones. Returns [S][B][H].
std::vector<double> Reference(const Config& cf, const onnx::ModelProto& m, int d,
                              const std::vector<float>& x, std::vector<double>& h,
                              std::vector<double>& c) {
  const int64_t S = cf.seq, B = cf.batch, I = cf.input, H = cf.hidden, G = Gates(cf.cell);
  const float* w = Find(m, "W") + d * G * H * I;
  const float* r = Find(m, "R") + d * G * H * H;
  const float* bias = cf.bias ? Find(m, "B") + d * 2 * G * H : nullptr;
  const float* p = cf.peepholes ? Find(m, "P") + d * 3 * H : nullptr;
  const bool reverse = cf.direction == "reverse" || d == 1;
  std::vector<double> y(S * B * H);
  for (int64_t step = 0; step < S; ++step) {
    const int64_t t = reverse ? S - 1 - step : step;
    for (int64_t b = 0; b < B; ++b) {
      // xw[g*H+j] = x W^T + Wb, hr[g*H+j] = h R^T + Rb.
      std::vector<double> xw(G * H), hr(G * H);
      for (int64_t k = 0; k < G * H; ++k) {
        xw[k] = bias ? bias[k] : 0.0;
        hr[k] = bias ? bias[G * H + k] : 0.0;
        for (int64_t i = 0; i < I; ++i) xw[k] += x[(t * B + b) * I + i] * w[k * I + i];
        for (int64_t i = 0; i < H; ++i) hr[k] += h[b * H + i] * r[k * H + i];
      }
      std::vector<double> hn(H), cn(H);
      for (int64_t j = 0; j < H; ++j) {
        if (cf.cell == Cell::kRnn) {
          hn[j] = std::tanh(xw[j] + hr[j]);
        } else if (cf.cell == Cell::kLstm) {
          const double cp = c[b * H + j];
          const double in = Sigmoid(xw[j] + hr[j] + (p ? p[j] * cp : 0));
          const double f = Sigmoid(xw[2 * H + j] + hr[2 * H + j] + (p ? p[2 * H + j] * cp : 0));
          const double cc = std::tanh(xw[3 * H + j] + hr[3 * H + j]);
          cn[j] = f * cp + in * cc;
          const double o = Sigmoid(xw[H + j] + hr[H + j] + (p ? p[H + j] * cn[j] : 0));
          hn[j] = o * std::tanh(cn[j]);
        } else {
          const double z = Sigmoid(xw[j] + hr[j]);
          double hh;
          if (cf.linear_before_reset) {
            const double rr = Sigmoid(xw[H + j] + hr[H + j]);
            hh = std::tanh(xw[2 * H + j] + rr * hr[2 * H + j]);
          } else {
            double s = bias ? bias[G * H + 2 * H + j] : 0.0;  // Rb_h
            for (int64_t i = 0; i < H; ++i) {
              const double ri = Sigmoid(xw[H + i] + hr[H + i]);
              s += ri * h[b * H + i] * r[(2 * H + j) * H + i];
            }
            hh = std::tanh(xw[2 * H + j] + s);
          }
          hn[j] = (1 - z) * hh + z * h[b * H + j];
        }
      }
      for (int64_t j = 0; j < H; ++j) {
        h[b * H + j] = hn[j];
        if (cf.cell == Cell::kLstm) c[b * H + j] = cn[j];
        y[(t * B + b) * H + j] = hn[j];
      }
    }
  }
  return y;
}

Tensor FloatTensor(Dims dims, const std::vector<float>& v) {
  Tensor t(TensorType(DType::kFloat32, std::move(dims)));
  for (size_t i = 0; i < v.size(); ++i) t.SetValue(static_cast<int64_t>(i), v[i]);
  return t;
}

// The unrolled import, and the opaque node run by its ONNX kernel (weights
// given at run time), both against Reference.
void Check(const Config& cf) {
  SCOPED_TRACE(::testing::Message() << "direction " << cf.direction << ", layout " << cf.layout);
  onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(Model(cf)));
  const int64_t S = cf.seq, B = cf.batch, I = cf.input, H = cf.hidden, D = cf.dirs();
  // Inputs in the model's layout; the reference wants time-major x and [B][H] states.
  std::vector<float> x = Values(S * B * I, 1.0f, 0.5f), xt(x.size());
  std::vector<float> h0 = Values(D * B * H, 0.6f, 0.7f), c0 = Values(D * B * H, 0.8f, 0.9f);
  for (int64_t t = 0; t < S; ++t)
    for (int64_t b = 0; b < B; ++b)
      for (int64_t i = 0; i < I; ++i) {
        xt[(t * B + b) * I + i] = cf.layout == 0 ? x[(t * B + b) * I + i] : x[(b * S + t) * I + i];
      }
  // Expected Y, Y_h, Y_c in the outputs' layouts.
  std::vector<double> want_y(S * D * B * H), want_h(D * B * H), want_c(D * B * H);
  for (int64_t d = 0; d < D; ++d) {
    std::vector<double> h(B * H, 0.0), c(B * H, 0.0);
    auto state = [&](int64_t b, int64_t j) {
      return cf.layout == 0 ? (d * B + b) * H + j : (b * D + d) * H + j;
    };
    for (int64_t b = 0; b < B; ++b)
      for (int64_t j = 0; j < H; ++j) {
        if (cf.initial_h) h[b * H + j] = h0[state(b, j)];
        if (cf.initial_c) c[b * H + j] = c0[state(b, j)];
      }
    std::vector<double> y = Reference(cf, m, static_cast<int>(d), xt, h, c);
    for (int64_t t = 0; t < S; ++t)
      for (int64_t b = 0; b < B; ++b)
        for (int64_t j = 0; j < H; ++j) {
          want_y[cf.layout == 0 ? ((t * D + d) * B + b) * H + j : ((b * S + t) * D + d) * H + j] =
              y[(t * B + b) * H + j];
        }
    for (int64_t b = 0; b < B; ++b)
      for (int64_t j = 0; j < H; ++j) {
        want_h[state(b, j)] = h[b * H + j];
        want_c[state(b, j)] = c[b * H + j];
      }
  }
  const Dims sd = cf.layout == 0 ? Dims{D, B, H} : Dims{B, D, H};
  const int64_t G = Gates(cf.cell);
  for (bool runtime_weights : {false, true}) {
    SCOPED_TRACE(runtime_weights ? "ONNX kernel" : "unrolled");
    absl::StatusOr<Graph> g = ParseOnnx(Model(cf, runtime_weights), "m.onnx");
    ASSERT_TRUE(g.ok()) << g.status();
    int opaque = 0;
    for (const Node& n : g->nodes()) opaque += IsKnownOp(n.op) ? 0 : 1;
    EXPECT_EQ(opaque, runtime_weights ? 1 : 0);
    std::vector<Tensor> inputs = {FloatTensor(cf.layout == 0 ? Dims{S, B, I} : Dims{B, S, I}, x)};
    if (runtime_weights) {
      inputs.push_back(FloatTensor({D, G * H, I}, WValues(cf)));
      inputs.push_back(FloatTensor({D, G * H, H}, RValues(cf)));
    }
    if (cf.initial_h) inputs.push_back(FloatTensor(sd, h0));
    if (cf.cell == Cell::kLstm && cf.initial_c) inputs.push_back(FloatTensor(sd, c0));
    absl::StatusOr<std::vector<Tensor>> out = Execute(*g, inputs);
    ASSERT_TRUE(out.ok()) << out.status();
    auto expect = [&](int k, const std::vector<double>& want, const char* what) {
      ASSERT_EQ((*out)[k].num_elements(), static_cast<int64_t>(want.size())) << what;
      for (size_t i = 0; i < want.size(); ++i) {
        EXPECT_NEAR((*out)[k].GetReal(static_cast<int64_t>(i)), want[i], 1e-5) << what << " " << i;
      }
    };
    expect(0, want_y, "Y");
    expect(1, want_h, "Y_h");
    if (cf.cell == Cell::kLstm) expect(2, want_c, "Y_c");
  }
}

TEST(OnnxRecurrent, LstmUnrollsInEveryDirectionAndLayout) {
  for (const char* dir : {"forward", "reverse", "bidirectional"}) {
    for (int layout : {0, 1}) {
      Config c{.cell = Cell::kLstm, .direction = dir, .layout = layout};
      Check(c);
    }
  }
}

TEST(OnnxRecurrent, LstmWithPeepholesAndWithoutInitialStatesOrBias) {
  Check(Config{.cell = Cell::kLstm, .direction = "bidirectional", .peepholes = true});
  Check(Config{.cell = Cell::kLstm,
               .bias = false,
               .initial_h = false,
               .initial_c = false,
               .peepholes = true});
  Check(Config{.cell = Cell::kLstm, .initial_c = false, .seq = 1});
}

TEST(OnnxRecurrent, GruUnrollsWithAndWithoutLinearBeforeReset) {
  for (bool lbr : {false, true}) {
    for (const char* dir : {"forward", "reverse", "bidirectional"}) {
      Check(Config{
          .cell = Cell::kGru, .direction = dir, .layout = lbr ? 1 : 0, .linear_before_reset = lbr});
    }
    Check(Config{.cell = Cell::kGru, .initial_h = false, .linear_before_reset = lbr});
    Check(Config{.cell = Cell::kGru, .bias = false, .linear_before_reset = lbr});
  }
}

TEST(OnnxRecurrent, RnnUnrolls) {
  Check(Config{.cell = Cell::kRnn, .direction = "bidirectional", .layout = 1});
  Check(Config{.cell = Cell::kRnn, .initial_h = false});
}

// One FullyConnected projects the whole sequence; each step adds one for
// the recurrent term (none at the first step without an initial state).
TEST(OnnxRecurrent, OneInputProjectionPerDirection) {
  Config c{.cell = Cell::kLstm, .initial_h = false, .initial_c = false, .seq = 5};
  absl::StatusOr<Graph> g = ParseOnnx(Model(c), "m.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  std::map<std::string, int> h;
  for (const Node& n : g->nodes()) ++h[n.op];
  EXPECT_EQ(h["FullyConnected"], 1 + 4);
  EXPECT_EQ(h["Split"], 5);
}

TEST(OnnxRecurrent, FormsItDoesNotUnrollStayOpaque) {
  struct Case {
    Config config;
    std::string attr, value, why;
  };
  std::vector<Case> cases = {
      {Config{.cell = Cell::kLstm, .seq = 65}, "", "", "sequence length 65"},
      {Config{.cell = Cell::kGru}, "clip", "", "clip"},
      {Config{.cell = Cell::kLstm}, "activations", "Relu", "activations"},
  };
  for (const Case& k : cases) {
    onnx::ModelProto m;
    ASSERT_TRUE(m.ParseFromString(Model(k.config)));
    onnx::NodeProto* n = m.mutable_graph()->mutable_node(0);
    if (k.attr == "clip") OnnxBuilder::AttrFloat(n, "clip", 3.0f);
    if (k.attr == "activations") {
      OnnxBuilder::AttrStrings(n, "activations", {"Sigmoid", k.value, "Tanh"});
    }
    // The opaque node's outputs are typed by ONNX's inference.
    absl::StatusOr<Graph> g = ParseOnnx(m.SerializeAsString(), "m.onnx");
    ASSERT_TRUE(g.ok()) << g.status();
    const Node* opaque = nullptr;
    for (const Node& node : g->nodes()) {
      if (node.op == "onnx.LSTM" || node.op == "onnx.GRU") opaque = &node;
    }
    ASSERT_NE(opaque, nullptr) << k.why;
    EXPECT_NE(std::get<std::string>(opaque->attrs.at("onnx.unmapped")).find(k.why),
              std::string::npos)
        << std::get<std::string>(opaque->attrs.at("onnx.unmapped"));
  }
}

}  // namespace
}  // namespace egret
