// The ONNX recurrent layers (onnx.RNN, onnx.GRU, onnx.LSTM) on examples small
// enough to check by hand: one hidden unit, one input feature, and weights
// chosen so that each gate's value is known.
// GCC's -O2 flow analysis reports a false "uninitialized" in
// absl::InlinedVector's move of an empty inline Dims (TensorType(t, {})).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "onnx_node.h"

namespace egret {
namespace {

using ::testing::DoubleNear;
using ::testing::ElementsAre;
using testing::F32;
using testing::F32Type;
using ::testing::HasSubstr;
using testing::I64;
using testing::OnnxNode;
using ::testing::Pointwise;
using testing::Values;

double Sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

auto Near(std::vector<double> v) { return Pointwise(DoubleNear(1e-6), v); }

// With W = R = 0 and no bias every gate sees 0: i = o = f = sigmoid(0) = 1/2
// and the cell candidate is tanh(0) = 0, so the cell state halves each step
// (C1 = 1/2, C2 = 1/4 from C0 = 1) and H = tanh(C) / 2.
TEST(OnnxLstm, ZeroWeightsHalveTheCellState) {
  OnnxNode lstm{"onnx.LSTM",
                {F32({2, 1, 1}, {5, -7}),       // X: 2 steps; ignored by W = 0
                 F32({1, 4, 1}, {0, 0, 0, 0}),  // W
                 F32({1, 4, 1}, {0, 0, 0, 0}),  // R
                 std::nullopt, std::nullopt, std::nullopt, F32({1, 1, 1}, {1})},  // initial_c
                {{"hidden_size", int64_t{1}}},
                {F32Type({2, 1, 1, 1}), F32Type({1, 1, 1}), F32Type({1, 1, 1})}};
  auto out = lstm.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values((*out)[0]), Near({0.5 * std::tanh(0.5), 0.5 * std::tanh(0.25)}));  // Y
  EXPECT_THAT(Values((*out)[1]), Near({0.5 * std::tanh(0.25)}));                        // Y_h
  EXPECT_THAT(Values((*out)[2]), Near({0.25}));                                         // Y_c
}

// One step with every operand present, checking the gate order of W, R and
// B (i, o, f, c) and of the peepholes P (i, o, f): the output gate's
// peephole reads the new cell state, the others the previous one.
TEST(OnnxLstm, GateAndPeepholeOrder) {
  const double x = 1, h0 = 0.5, c0 = 2;
  const double wi = 0.5, wo = -0.5, wf = 1, wc = 2;     // W
  const double ri = 0.1, ro = 0.2, rf = 0.3, rc = 0.4;  // R
  const double bi = 0.1, bo = 0.2, bf = 0.3, bc = 0.4;  // Wb (Rb = 0)
  const double pi = 0.5, po = 0.25, pf = -0.5;          // P
  OnnxNode lstm{
      "onnx.LSTM",
      {F32({1, 1, 1}, {x}), F32({1, 4, 1}, {wi, wo, wf, wc}), F32({1, 4, 1}, {ri, ro, rf, rc}),
       F32({1, 8}, {bi, bo, bf, bc, 0, 0, 0, 0}), std::nullopt, F32({1, 1, 1}, {h0}),
       F32({1, 1, 1}, {c0}), F32({1, 3}, {pi, po, pf})},
      {{"hidden_size", int64_t{1}}},
      {F32Type({1, 1, 1, 1}), F32Type({1, 1, 1}), F32Type({1, 1, 1})}};
  const double i = Sigmoid(wi * x + ri * h0 + bi + pi * c0);
  const double f = Sigmoid(wf * x + rf * h0 + bf + pf * c0);
  const double cell = std::tanh(wc * x + rc * h0 + bc);
  const double c1 = f * c0 + i * cell;
  const double o = Sigmoid(wo * x + ro * h0 + bo + po * c1);
  auto out = lstm.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values((*out)[1]), Near({o * std::tanh(c1)}));
  EXPECT_THAT(Values((*out)[2]), Near({c1}));
}

// clip bounds every gate input: a bias of 100 on the input and cell gates
// acts as 1, so C1 = sigmoid(1) * tanh(1) from C0 = 0.
TEST(OnnxLstm, ClipBoundsTheGateInputs) {
  OnnxNode lstm{"onnx.LSTM",
                {F32({1, 1, 1}, {0}), F32({1, 4, 1}, {0, 0, 0, 0}), F32({1, 4, 1}, {0, 0, 0, 0}),
                 F32({1, 8}, {100, 0, 0, 100, 0, 0, 0, 0})},
                {{"hidden_size", int64_t{1}}, {"clip", 1.0}},
                {F32Type({1, 1, 1, 1}), F32Type({1, 1, 1}), F32Type({1, 1, 1})}};
  auto out = lstm.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  const double c1 = Sigmoid(1) * std::tanh(1);
  EXPECT_THAT(Values((*out)[2]), Near({c1}));
  EXPECT_THAT(Values((*out)[1]), Near({0.5 * std::tanh(c1)}));
}

// input_forget couples the forget gate to the input gate: f = 1 - i. With a
// bias of 2 on the input gate, C0 = 1 and a zero cell candidate,
// C1 = 1 - sigmoid(2) (a free forget gate would give sigmoid(0) = 1/2).
TEST(OnnxLstm, InputForgetCouplesTheForgetGate) {
  OnnxNode lstm{
      "onnx.LSTM",
      {F32({1, 1, 1}, {0}), F32({1, 4, 1}, {0, 0, 0, 0}), F32({1, 4, 1}, {0, 0, 0, 0}),
       F32({1, 8}, {2, 0, 0, 0, 0, 0, 0, 0}), std::nullopt, std::nullopt, F32({1, 1, 1}, {1})},
      {{"hidden_size", int64_t{1}}, {"input_forget", int64_t{1}}},
      {F32Type({1, 1, 1, 1}), F32Type({1, 1, 1}), F32Type({1, 1, 1})}};
  auto out = lstm.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values((*out)[2]), Near({1 - Sigmoid(2)}));
}

// A bidirectional LSTM has a direction axis in every output: Y is
// [seq, 2, batch, hidden] and Y_h, Y_c are [2, batch, hidden].
TEST(OnnxLstm, BidirectionalShapes) {
  const int seq = 3, batch = 2, input = 4, hidden = 5;
  OnnxNode lstm{
      "onnx.LSTM",
      {F32({seq, batch, input}, std::vector<double>(seq * batch * input, 0.1)),
       F32({2, 4 * hidden, input}, std::vector<double>(2 * 4 * hidden * input, 0.2)),
       F32({2, 4 * hidden, hidden}, std::vector<double>(2 * 4 * hidden * hidden, 0.3))},
      {{"hidden_size", int64_t{hidden}}, {"direction", std::string("bidirectional")}},
      {F32Type({seq, 2, batch, hidden}), F32Type({2, batch, hidden}), F32Type({2, batch, hidden})}};
  auto out = lstm.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT((*out)[0].type().dims, ElementsAre(seq, 2, batch, hidden));
  EXPECT_THAT((*out)[1].type().dims, ElementsAre(2, batch, hidden));
  EXPECT_THAT((*out)[2].type().dims, ElementsAre(2, batch, hidden));
}

// A node whose declared output does not match what its inputs give fails,
// naming the op, instead of producing a wrongly shaped tensor.
TEST(OnnxLstm, WrongDeclaredShapeIsAnError) {
  OnnxNode lstm{"onnx.LSTM",
                {F32({1, 1, 1}, {0}), F32({1, 4, 1}, {0, 0, 0, 0}), F32({1, 4, 1}, {0, 0, 0, 0})},
                {{"hidden_size", int64_t{1}}},
                {F32Type({1, 1, 1, 2})}};
  auto out = lstm.Run();
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("onnx.LSTM: output 0 is declared"));
}

TEST(OnnxLstm, MismatchedWeightsAreAnError) {
  OnnxNode lstm{"onnx.LSTM",
                {F32({1, 1, 1}, {0}), F32({1, 3, 1}, {0, 0, 0}), F32({1, 4, 1}, {0, 0, 0, 0})},
                {{"hidden_size", int64_t{1}}},
                {F32Type({1, 1, 1, 1})}};
  auto out = lstm.Run();
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("do not fit"));
}

// An RNN with W = R = 1 and Relu sums its inputs: over X = 1, 2, 3 the
// forward direction gives 1, 3, 6 and the reverse one, which starts at the
// last step, 6, 5, 3 (written at the steps they belong to). The second batch
// row has sequence length 2: it stops after two steps, its reverse direction
// starts at step 1, and Y is zero past its end.
TEST(OnnxRnn, BidirectionalWithSequenceLengths) {
  OnnxNode rnn{"onnx.RNN",
               {F32({3, 2, 1}, {1, 1, 2, 2, 3, 3}),  // X [seq, batch, 1]
                F32({2, 1, 1}, {1, 1}), F32({2, 1, 1}, {1, 1}), std::nullopt,
                Tensor::FromValues(TensorType(DType::kInt32, {2}), {3, 2})},
               {{"hidden_size", int64_t{1}},
                {"direction", std::string("bidirectional")},
                {"activations", std::string("Relu,Relu")}},
               {F32Type({3, 2, 2, 1}), F32Type({2, 2, 1})}};
  auto out = rnn.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  // Y[t][direction][batch]
  EXPECT_THAT(Values((*out)[0]), ElementsAre(1, 1, 6, 3,    // t = 0
                                             3, 3, 5, 2,    // t = 1
                                             6, 0, 3, 0));  // t = 2
  // Y_h[direction][batch]: the state after each row's last step.
  EXPECT_THAT(Values((*out)[1]), ElementsAre(6, 3, 6, 3));
}

// direction "reverse" runs the single direction from the last step.
TEST(OnnxRnn, Reverse) {
  OnnxNode rnn{"onnx.RNN",
               {F32({3, 1, 1}, {1, 2, 3}), F32({1, 1, 1}, {1}), F32({1, 1, 1}, {1})},
               {{"hidden_size", int64_t{1}},
                {"direction", std::string("reverse")},
                {"activations", std::string("Relu")}},
               {F32Type({3, 1, 1, 1}), F32Type({1, 1, 1})}};
  auto out = rnn.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values((*out)[0]), ElementsAre(6, 5, 3));
  EXPECT_THAT(Values((*out)[1]), ElementsAre(6));
}

// layout 1 puts the batch first in X, initial_h and every output.
TEST(OnnxRnn, BatchFirstLayout) {
  OnnxNode rnn{
      "onnx.RNN",
      {F32({1, 3, 1}, {1, 2, 3}),  // X [batch, seq, 1]
       F32({1, 1, 1}, {1}), F32({1, 1, 1}, {1}), std::nullopt, std::nullopt,
       F32({1, 1, 1}, {10})},  // initial_h [batch, directions, hidden]
      {{"hidden_size", int64_t{1}}, {"layout", int64_t{1}}, {"activations", std::string("Relu")}},
      {F32Type({1, 3, 1, 1}), F32Type({1, 1, 1})}};
  auto out = rnn.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values((*out)[0]), ElementsAre(11, 13, 16));
  EXPECT_THAT(Values((*out)[1]), ElementsAre(16));
}

// Activations take their alpha and beta from activation_alpha/_beta in
// order, each direction its own: LeakyRelu(alpha 0.1) forward, Affine
// (alpha 2, beta 1) in reverse, so X = -1 gives -0.1 and -1.
TEST(OnnxRnn, ActivationParameters) {
  OnnxNode rnn{"onnx.RNN",
               {F32({1, 1, 1}, {-1}), F32({2, 1, 1}, {1, 1}), F32({2, 1, 1}, {0, 0})},
               {{"hidden_size", int64_t{1}},
                {"direction", std::string("bidirectional")},
                {"activations", std::string("LeakyRelu,Affine")},
                {"activation_alpha", std::vector<double>{0.1, 2}},
                {"activation_beta", std::vector<double>{1}}},
               {F32Type({1, 2, 1, 1})}};
  auto out = rnn.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values((*out)[0]), Near({-0.1, -1}));
}

// The default RNN activation is tanh.
TEST(OnnxRnn, DefaultActivationIsTanh) {
  OnnxNode rnn{"onnx.RNN",
               {F32({1, 1, 1}, {0.5}), F32({1, 1, 1}, {2}), F32({1, 1, 1}, {0})},
               {{"hidden_size", int64_t{1}}},
               {F32Type({1, 1, 1, 1})}};
  auto out = rnn.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values((*out)[0]), Near({std::tanh(1.0)}));
}

// GRU gates are z, r, h. With W = (0, 0, 1), R = (0, 0, 2), Rb_h = 1,
// x = 0.5 and H0 = 1: z = r = sigmoid(0) = 1/2 and H1 = (h + H0) / 2, where
// h = tanh(0.5 + 2 (r H0) + 1) = tanh(2.5) by default, and
// h = tanh(0.5 + r (2 H0 + 1)) = tanh(2) with linear_before_reset.
TEST(OnnxGru, LinearBeforeReset) {
  auto gru = [](int64_t linear_before_reset) {
    return OnnxNode{"onnx.GRU",
                    {F32({1, 1, 1}, {0.5}), F32({1, 3, 1}, {0, 0, 1}), F32({1, 3, 1}, {0, 0, 2}),
                     F32({1, 6}, {0, 0, 0, 0, 0, 1}), std::nullopt, F32({1, 1, 1}, {1})},
                    {{"hidden_size", int64_t{1}}, {"linear_before_reset", linear_before_reset}},
                    {F32Type({1, 1, 1, 1}), F32Type({1, 1, 1})}};
  };
  auto plain = gru(0).Run();
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_THAT(Values((*plain)[1]), Near({(std::tanh(2.5) + 1) / 2}));
  auto linear = gru(1).Run();
  ASSERT_TRUE(linear.ok()) << linear.status();
  EXPECT_THAT(Values((*linear)[1]), Near({(std::tanh(2.0) + 1) / 2}));
}

// An output the model leaves unnamed is declared by the importer as an empty
// placeholder; the kernel fills it with an empty tensor.
TEST(OnnxGru, UnusedOutputStaysEmpty) {
  TensorType placeholder = F32Type({0});
  OnnxNode gru{"onnx.GRU",
               {F32({1, 1, 1}, {0.5}), F32({1, 3, 1}, {0, 0, 1}), F32({1, 3, 1}, {0, 0, 0})},
               {{"hidden_size", int64_t{1}}, {"onnx.untyped_outputs", int64_t{0}}},
               {placeholder, F32Type({1, 1, 1})}};
  auto out = gru.Run();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].num_elements(), 0);
  EXPECT_THAT(Values((*out)[1]), Near({0.5 * std::tanh(0.5)}));
}

TEST(OnnxRnn, SequenceLengthOutOfRangeIsAnError) {
  OnnxNode rnn{
      "onnx.RNN",
      {F32({1, 1, 1}, {0}), F32({1, 1, 1}, {1}), F32({1, 1, 1}, {1}), std::nullopt, I64({1}, {2})},
      {{"hidden_size", int64_t{1}}},
      {F32Type({1, 1, 1, 1})}};
  auto out = rnn.Run();
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("sequence length 2"));
}

}  // namespace
}  // namespace egret
