// ONNX operator conformance: every single-op model of Debian's libonnx-testdata
// (/usr/share/libonnx-testdata/data/node/*/model.onnx) whose ops egret maps is
// imported (NHWC layout, so Conv/pool/Resize tests run through the boundary
// transposes), run on test_data_set_0's inputs by the reference executor, and
// compared with the expected outputs. Models egret cannot represent (an
// unsupported element type, an op kept opaque, an op without a reference
// kernel, neither an egret kernel nor an ONNX-semantics one for an opaque op,
// a kernel reporting the case unimplemented) are skipped; any other import or
// execution error, or a wrong value, fails. A summary line reports the counts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "egret/executor/executor.h"
#include "egret/executor/test_data.h"
#include "egret/graph/graph.h"
#include "egret/graph/op_table.h"
#include "egret/onnx/onnx_reader.h"

namespace egret {
namespace {

namespace fs = std::filesystem;

constexpr char kNodeDir[] = "/usr/share/libonnx-testdata/data/node";

// Tolerances of ONNX's backend tests (rtol 1e-3) with a small absolute floor
// for float32 values computed in double.
constexpr double kRtol = 1e-3;
constexpr double kAtol = 1e-5;

enum class Outcome { kPassed, kFailed, kSkipped };

struct Result {
  Outcome outcome;
  std::string detail;
  int opaque = 0;  // opaque nodes in the graph that ran
};

std::vector<std::string> PbFiles(const fs::path& dir, const std::string& prefix) {
  std::vector<std::string> files;
  for (int i = 0;; ++i) {
    fs::path p = dir / absl::StrFormat("%s_%d.pb", prefix, i);
    if (!fs::exists(p)) break;
    files.push_back(p.string());
  }
  return files;
}

// A node the reference executor cannot run: an opaque op with no ONNX kernel.
bool HasOpaque(const Graph& g) {
  for (const Node& n : g.nodes()) {
    if (!HasKernel(n)) return true;
  }
  return false;
}

// Cases whose expected outputs contradict their own model.onnx in the
// packaged ONNX release; they are skipped with the reason.
struct BadData {
  const char* name;
  const char* reason;
};
// ONNX before 1.13 generated the expected bfloat16 of a float by truncating
// it; ONNX's Cast rounds to nearest even (as ONNX Runtime does, and egret).
constexpr char kBFloat16Truncated[] =
    "test data bug: the expected bfloat16 values are the float32 inputs truncated, not rounded "
    "to nearest even as Cast specifies (ONNX's generator before 1.13)";
constexpr BadData kBadData[] = {
    {"test_cast_FLOAT_to_BFLOAT16", kBFloat16Truncated},
    {"test_castlike_FLOAT_to_BFLOAT16", kBFloat16Truncated},
    {"test_castlike_FLOAT_to_BFLOAT16_expanded", kBFloat16Truncated},
    {"test_adam_multiple",
     "test data bug: the expected outputs use epsilon=1e-2, which model.onnx does not set "
     "(onnx/onnx#7763, fixed after ONNX 1.12)"},
};

// Random ops (kernels/onnx/onnx_random.cc): ONNX's expected outputs are
// numpy's draws, which egret's generator does not reproduce, so such a case
// cannot be compared by value. A case of a kind listed here passes when the
// checks that do not depend on the draws hold; any other case whose graph
// holds a random op is skipped. docs/onnx-import.md lists what each checks.
bool HasRandomOp(const Graph& g) {
  for (const Node& n : g.nodes()) {
    if (n.op == "onnx.RandomNormal" || n.op == "onnx.RandomUniform" ||
        n.op == "onnx.RandomNormalLike" || n.op == "onnx.RandomUniformLike" ||
        n.op == "onnx.Bernoulli" || n.op == "onnx.Multinomial") {
      return true;
    }
  }
  return false;
}

// The checks every random case makes: as many outputs as expected, each of
// the expected dtype and dims.
std::string SameTypes(const std::vector<Tensor>& out, const std::vector<Tensor>& expected) {
  if (out.size() != expected.size()) {
    return absl::StrFormat("%d outputs, expected %d", out.size(), expected.size());
  }
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i].type().dtype != expected[i].type().dtype ||
        out[i].type().dims != expected[i].type().dims) {
      return absl::StrFormat("output %d is %s, expected %s", i, out[i].type().ToString(),
                             expected[i].type().ToString());
    }
  }
  return "";
}

// Bernoulli (test_bernoulli*): output 0 has the expected type, holds only 0
// and 1, and is exactly 0 where the probability (input 0) is 0 and 1 where
// it is 1.
std::string CheckBernoulli(const std::vector<Tensor>& inputs, const std::vector<Tensor>& out,
                           const std::vector<Tensor>& expected) {
  if (std::string e = SameTypes(out, expected); !e.empty()) return e;
  const Tensor& p = inputs[0];
  for (int64_t i = 0; i < out[0].num_elements(); ++i) {
    const double v = out[0].GetReal(i);
    if (v != 0 && v != 1) return absl::StrFormat("element %d is %g, not 0 or 1", i, v);
    if (i < p.num_elements() && (p.GetReal(i) == 0 || p.GetReal(i) == 1) && v != p.GetReal(i)) {
      return absl::StrFormat("element %d is %g for probability %g", i, v, p.GetReal(i));
    }
  }
  return "";
}

// Dropout in training mode (test_training_dropout*, ratio > 0): output 0
// has the expected type and each element is 0 or x * s, with s the scale
// 1 / (1 - ratio) the expected output shows; the mask (output 1), when there
// is one, is true exactly where the element was kept. Which elements are
// dropped is the draw's, not compared.
std::string CheckTrainingDropout(const std::vector<Tensor>& inputs, const std::vector<Tensor>& out,
                                 const std::vector<Tensor>& expected) {
  if (std::string e = SameTypes(out, expected); !e.empty()) return e;
  const Tensor& x = inputs[0];
  double scale = 0;
  for (int64_t i = 0; i < x.num_elements() && scale == 0; ++i) {
    if (expected[0].GetReal(i) != 0 && x.GetReal(i) != 0) {
      scale = expected[0].GetReal(i) / x.GetReal(i);
    }
  }
  if (scale == 0) return "the expected output keeps no element: no scale to check";
  int kept = 0;
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    const double v = out[0].GetReal(i), want = x.GetReal(i) * scale;
    const bool keep = std::abs(v - want) <= kAtol + kRtol * std::abs(want);
    if (!keep && v != 0) {
      return absl::StrFormat("element %d is %g, neither 0 nor x * %g = %g", i, v, scale, want);
    }
    kept += keep && v != 0 ? 1 : 0;
    if (out.size() > 1 && x.GetReal(i) != 0 && (out[1].GetReal(i) != 0) != keep) {
      return absl::StrFormat("mask element %d disagrees with output element %d", i, i);
    }
  }
  if (kept == 0) return "every element was dropped";
  return "";
}

// The random cases with a check, by name prefix (the zero-ratio dropout
// cases draw nothing: their values are compared).
using RandomCheck = std::string (*)(const std::vector<Tensor>&, const std::vector<Tensor>&,
                                    const std::vector<Tensor>&);
RandomCheck RandomCheckFor(const std::string& name) {
  if (name.rfind("test_bernoulli", 0) == 0) return CheckBernoulli;
  if (name.rfind("test_training_dropout", 0) == 0 && name.find("zero_ratio") == std::string::npos) {
    return CheckTrainingDropout;
  }
  return nullptr;
}

// ONNX's test generator (before ONNX 1.13) saved BFLOAT16 test tensors as
// UINT16 arrays of their bit patterns (NumPy has no bfloat16), which egret
// reads as QUInt16: such a tensor is given the BFloat16 type `want` of the
// same dims the model declares.
void BFloat16FromBits(Tensor& t, const TensorType& want) {
  if (want.dtype == DType::kBFloat16 && t.type().dtype == DType::kQUInt16 &&
      t.type().dims == want.dims) {
    t.Retype(want);
  }
}

// Whether some node or graph output of g reads the values of graph input
// node `input` (an opaque CastLike reads only the element type of its
// second input).
bool IsRead(const Graph& g, NodeId input) {
  for (const Node& n : g.nodes()) {
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      if (n.inputs[i].node == input && !(n.op == "onnx.CastLike" && i == 1)) return true;
    }
  }
  for (const auto& o : g.outputs()) {
    if (o.value.node == input) return true;
  }
  return false;
}

// With `freeze`, every input but the first is frozen whether or not the
// graph has opaque ops.
Result RunCase(const fs::path& dir, bool freeze = false) {
  for (const BadData& b : kBadData) {
    if (dir.filename() == b.name) return {Outcome::kSkipped, b.reason};
  }
  const std::string model = (dir / "model.onnx").string();
  const fs::path data = dir / "test_data_set_0";
  if (!fs::exists(data)) return {Outcome::kSkipped, "no test_data_set_0"};
  // Graph inputs with symbolic or unknown dims take the dims of their test
  // data (OnnxImportOptions::input_shapes).
  OnnxImportOptions base;
  const std::vector<std::string> input_files = PbFiles(data, "input");
  if (absl::StatusOr<std::vector<OnnxInputSignature>> sig = ReadOnnxInputSignature(model);
      sig.ok()) {
    for (size_t i = 0; i < sig->size() && i < input_files.size(); ++i) {
      const OnnxInputSignature& in = (*sig)[i];
      const bool sized = std::all_of(in.dims.begin(), in.dims.end(), [](const std::string& d) {
        return !d.empty() && std::isdigit(static_cast<unsigned char>(d[0]));
      });
      if (sized && in.has_shape) continue;
      absl::StatusOr<Tensor> t = ReadOnnxTensor(input_files[i]);
      if (t.ok()) base.input_shapes[in.name] = t->type().dims;
    }
  }
  absl::StatusOr<Graph> g = ReadOnnx(model, base);
  if (!g.ok()) {
    if (g.status().code() == absl::StatusCode::kUnimplemented) {
      return {Outcome::kSkipped, std::string(g.status().message())};
    }
    return {Outcome::kFailed, absl::StrFormat("import: %s", g.status().message())};
  }
  std::vector<Tensor> inputs, expected;
  for (size_t i = 0; i < input_files.size(); ++i) {
    const std::string& f = input_files[i];
    // A sequence or optional input is read as the model types it.
    absl::StatusOr<Tensor> t = i < g->inputs().size()
                                   ? ReadOnnxValue(f, g->node(g->inputs()[i]).outputs[0])
                                   : ReadOnnxTensor(f);
    if (!t.ok()) {
      if (t.status().code() == absl::StatusCode::kUnimplemented || HasOpaque(*g)) {
        return {Outcome::kSkipped, std::string(t.status().message())};
      }
      return {Outcome::kFailed, std::string(t.status().message())};
    }
    inputs.push_back(*std::move(t));
  }
  if ((freeze || HasOpaque(*g)) && inputs.size() > 1) {
    // Parameters (shapes, axes, scales, weights) are graph inputs in these
    // tests; egret needs them constant. Freeze every input but the first.
    OnnxImportOptions frozen = base;
    for (size_t i = 1; i < inputs.size(); ++i) {
      const std::string& name = g->node(g->inputs()[i]).name;
      frozen.input_shapes.erase(name);
      frozen.input_values.emplace(name, inputs[i]);
    }
    absl::StatusOr<Graph> g2 = ReadOnnx(model, frozen);
    if (g2.ok() && (freeze || !HasOpaque(*g2))) {
      g = std::move(g2);
      inputs.erase(inputs.begin() + 1, inputs.end());
    }
  }
  for (const Node& n : g->nodes()) {
    if (!HasKernel(n)) {
      return {Outcome::kSkipped,
              (IsKnownOp(n.op) ? "no reference kernel for " : "opaque op ") + n.op};
    }
  }
  const std::vector<std::string> output_files = PbFiles(data, "output");
  for (size_t k = 0; k < output_files.size(); ++k) {
    const std::string& f = output_files[k];
    absl::StatusOr<Tensor> t = k < g->outputs().size()
                                   ? ReadOnnxValue(f, g->TypeOf(g->outputs()[k].value))
                                   : ReadOnnxTensor(f);
    if (!t.ok()) return {Outcome::kSkipped, std::string(t.status().message())};
    expected.push_back(*std::move(t));
  }
  // Test data may feed optional inputs the model lists after the real ones.
  if (inputs.size() != g->inputs().size()) {
    return {Outcome::kFailed, absl::StrFormat("model has %d inputs, test data %d",
                                              g->inputs().size(), inputs.size())};
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorType& want = g->node(g->inputs()[i]).outputs[0];
    BFloat16FromBits(inputs[i], want);
    // The BFLOAT16 CastLike cases feed a `like` of one element where the
    // model declares [3, 4]; CastLike reads only its element type: any
    // value of the declared type does.
    if (inputs[i].type().dtype == want.dtype && inputs[i].type().dims != want.dims &&
        !IsRead(*g, g->inputs()[i])) {
      inputs[i] = Tensor(want);
    }
    if (inputs[i].type() != want) {
      return {Outcome::kFailed, absl::StrFormat("input %d is %s, the graph wants %s", i,
                                                inputs[i].type().ToString(), want.ToString())};
    }
  }
  const std::string name = dir.filename().string();
  const RandomCheck random_check = RandomCheckFor(name);
  if (random_check == nullptr && HasRandomOp(*g)) {
    return {Outcome::kSkipped, "random outputs (no value to compare and no property check)"};
  }
  int opaque = 0;
  for (const Node& n : g->nodes()) opaque += IsKnownOp(n.op) ? 0 : 1;
  absl::StatusOr<std::vector<Tensor>> out = Execute(*g, inputs);
  if (!out.ok()) {
    // A kernel may leave a case unimplemented (Dropout in training mode is
    // random): a skip, like an op without a kernel.
    const Outcome o = absl::IsUnimplemented(out.status()) ? Outcome::kSkipped : Outcome::kFailed;
    return {o, absl::StrFormat("execute: %s", out.status().message())};
  }
  if (random_check != nullptr) {
    const std::string why = random_check(inputs, *out, expected);
    if (!why.empty()) return {Outcome::kFailed, absl::StrCat("random case: ", why)};
    return {Outcome::kPassed, "", opaque};
  }
  if (out->size() != expected.size()) {
    return {Outcome::kFailed,
            absl::StrFormat("%d outputs, expected %d", out->size(), expected.size())};
  }
  for (size_t i = 0; i < expected.size(); ++i) {
    BFloat16FromBits(expected[i], (*out)[i].type());
    if ((*out)[i].type().dtype != expected[i].type().dtype) {
      return {Outcome::kFailed,
              absl::StrFormat("output %d is %s, expected %s", i, (*out)[i].type().ToString(),
                              expected[i].type().ToString())};
    }
  }
  absl::StatusOr<std::vector<OutputDiff>> diff = CompareOutputs(*out, expected, kRtol, kAtol);
  if (!diff.ok()) return {Outcome::kFailed, std::string(diff.status().message())};
  for (size_t i = 0; i < diff->size(); ++i) {
    const OutputDiff& d = (*diff)[i];
    if (!d.within_tolerance()) {
      return {Outcome::kFailed,
              absl::StrFormat("output %d: %d mismatches, max abs error %g, max rel error %g", i,
                              d.mismatches, d.max_abs, d.max_rel)};
    }
  }
  return {Outcome::kPassed, "", opaque};
}

TEST(OnnxConformance, NodeTests) {
  if (!fs::is_directory(kNodeDir)) GTEST_SKIP() << kNodeDir << " not found (libonnx-testdata)";
  std::vector<fs::path> cases;
  for (const auto& e : fs::directory_iterator(kNodeDir)) {
    if (fs::exists(e.path() / "model.onnx")) cases.push_back(e.path());
  }
  std::sort(cases.begin(), cases.end());
  int passed = 0, failed = 0, skipped = 0;
  std::vector<std::string> passed_names;
  for (const fs::path& dir : cases) {
    Result r = RunCase(dir);
    const std::string name = dir.filename().string();
    switch (r.outcome) {
      case Outcome::kPassed:
        ++passed;
        passed_names.push_back(name);
        break;
      case Outcome::kFailed:
        ++failed;
        ADD_FAILURE() << name << ": " << r.detail;
        break;
      case Outcome::kSkipped:
        ++skipped;
        if (getenv("EGRET_CONFORMANCE_VERBOSE"))
          std::cout << "skip " << name << ": " << r.detail << "\n";
        break;
    }
  }
  if (getenv("EGRET_CONFORMANCE_VERBOSE")) {
    for (const auto& n : passed_names) std::cout << "pass " << n << "\n";
  }
  std::cout << absl::StrFormat("ONNX conformance: %d passed, %d failed, %d skipped (of %d)\n",
                               passed, failed, skipped, cases.size());
  // Guard against a silent regression that skips more: the 19 cases skipped
  // today are test-data bugs and bodies whose types are known only at run
  // time (docs/onnx-import.md lists each with its reason).
  EXPECT_LE(skipped, 19);
  EXPECT_GE(passed, 913);
}

// The recurrent cases (W, R, B are graph inputs there) with their parameters
// frozen, so that egret unrolls them: this checks the unrolled form whatever
// kernels the opaque onnx.LSTM/GRU/RNN have.
TEST(OnnxConformance, RecurrentCasesUnrolled) {
  if (!fs::is_directory(kNodeDir)) GTEST_SKIP() << kNodeDir << " not found (libonnx-testdata)";
  int cases = 0;
  for (const auto& e : fs::directory_iterator(kNodeDir)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("test_lstm_", 0) != 0 && name.rfind("test_gru_", 0) != 0 &&
        name.rfind("test_rnn_", 0) != 0 && name.rfind("test_simple_rnn_", 0) != 0) {
      continue;
    }
    Result r = RunCase(e.path(), /*freeze=*/true);
    EXPECT_EQ(r.outcome, Outcome::kPassed) << name << ": " << r.detail;
    EXPECT_EQ(r.opaque, 0) << name;
    ++cases;
  }
  EXPECT_GE(cases, 12);
}

}  // namespace
}  // namespace egret
