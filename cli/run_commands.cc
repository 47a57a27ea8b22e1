// egret run GRAPH [--inputs DIR | --random SEED] [--save-inputs DIR] [-o DIR]
//     [--memory-limit BYTES] [--threads N] [--repeat N] [--profile]: runs a graph on the
// reference executor and prints a summary per output, the nodes run, the peak live bytes and
// the time of reading GRAPH and of the run, wall and CPU time of all threads ("time: read
// 12.5 ms, run 310.2 ms (cpu 305.8 ms)"); --repeat N runs it N times and adds the median of
// runs 2..N (warm: oneDNN's kernels compiled); --profile adds each op's node count and
// kernel time (of the last run).
// --save-inputs writes the inputs it ran on (with --random, the seeded ones)
// as --inputs reads them, to feed another runtime the same values.
// egret verify A B [--inputs DIR | --seed N] [--rtol R] [--atol A] [--memory-limit BYTES]: runs two
// graphs on the same inputs and compares their outputs: exit 0 when every output was compared and
// matches, 1 when one differs, 3 when some output could not be computed (VerifyVerdict).
//
// Input files are DIR/<input name>.npy (DIR/input<k>.npy for an unnamed
// input); outputs are written as DIR/<output name>.npy (output<k>.npy).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "cli/commands.h"
#include "cli/graph_input.h"
#include "cli/limit_options.h"
#include "egret/executor/executor.h"
#include "egret/executor/npy.h"
#include "egret/executor/test_data.h"
#include "egret/executor/verify.h"
#include "egret/graph/checked_math.h"
#include "egret/graph/saturated_count.h"
#include "egret/io/graph_io.h"
#include "egret/support/diagnostic.h"
#include "egret/support/file_io.h"
#include "egret/support/process_time.h"

namespace egret::cli {
namespace {

constexpr const char* kThreadsHelp =
    "Threads the reference executor may use (default 0: every core); results are the same run "
    "to run for a given count";

constexpr const char* kMemoryLimitHelp =
    "Most bytes of computed values alive at once, with K/M/G/T suffix (default 75% of physical "
    "memory; 'none'); over it the run fails";

// A failed run of the executor: going over --memory-limit (kResourceExhausted,
// the only limit the executor has) is a limit hit, exit 1, not bad input;
// anything else maps as ExitCodeFor.
int ReportRunFailure(const absl::Status& status) {
  std::cerr << status.message() << "\n";
  return status.code() == absl::StatusCode::kResourceExhausted ? kExitCheckFailed
                                                               : ExitCodeFor(status);
}

// A file-system-safe name: letters, digits, '_', '-', '.'; others become '_'.
std::string FileStem(const std::string& name, std::string_view fallback, size_t k) {
  if (name.empty()) return absl::StrFormat("%s%d", fallback, k);
  std::string s = name;
  for (char& ch : s) {
    if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-' || ch == '.')) {
      ch = '_';
    }
  }
  return s;
}

absl::StatusOr<std::vector<Tensor>> LoadInputs(const Graph& g, const std::string& dir) {
  std::vector<Tensor> inputs;
  for (size_t k = 0; k < g.inputs().size(); ++k) {
    const Node& n = g.node(g.inputs()[k]);
    std::string path = (std::filesystem::path(dir) / (FileStem(n.name, "input", k) + ".npy"));
    auto t = ReadNpy(path, n.outputs[0]);
    if (!t.ok()) return t.status();
    inputs.push_back(*std::move(t));
  }
  return inputs;
}

// The graph's inputs, read from `dir` or made from `seed`. Inputs that
// together need more than `memory_limit` bytes are refused before anything
// is allocated: the memory limit is hit (kResourceExhausted, exit 1), as when
// the executor's live values outgrow it.
absl::StatusOr<std::vector<Tensor>> Inputs(const Graph& g, const std::string& path,
                                           const std::string& dir, uint64_t seed,
                                           size_t memory_limit) {
  int64_t bytes = 0;
  for (NodeId id : g.inputs()) bytes = SaturatingAdd(bytes, g.node(id).outputs[0].byte_size());
  if (static_cast<uint64_t>(bytes) > memory_limit) {
    return absl::ResourceExhaustedError(
        absl::StrFormat("%s: error: the graph's inputs need %d bytes, over the limit of %d bytes "
                        "(--memory-limit)",
                        path, bytes, memory_limit));
  }
  if (!dir.empty()) return LoadInputs(g, dir);
  return MakeRandomInputs(g, seed);
}

// Creates `dir` (and its parents).
absl::Status MakeDirectory(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: error: cannot create directory: %s", dir, ec.message()));
  }
  return absl::OkStatus();
}

// Writes input k of `g` as DIR/<input name>.npy, the file LoadInputs reads.
absl::Status SaveInputs(const Graph& g, const std::vector<Tensor>& inputs, const std::string& dir) {
  if (absl::Status s = MakeDirectory(dir); !s.ok()) return s;
  for (size_t k = 0; k < inputs.size(); ++k) {
    const std::string file =
        std::filesystem::path(dir) / (FileStem(g.node(g.inputs()[k]).name, "input", k) + ".npy");
    if (absl::Status s = WriteFileAtomically(file, EncodeNpy(inputs[k])); !s.ok()) return s;
  }
  return absl::OkStatus();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double MsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

int RunCommand(const std::string& path, const std::string& inputs_dir, uint64_t seed,
               const std::string& save_inputs, const std::string& out_dir,
               const GraphInputFlags& input, const std::string& memory_limit, int threads,
               int repeat, bool profile) {
  std::optional<size_t> memory = ParseMemoryLimit("run", memory_limit);
  if (!memory) return kExitBadInput;
  const auto read_start = std::chrono::steady_clock::now();
  GraphInputFlags limited = input;
  limited.memory_limit_bytes = static_cast<int64_t>(*memory);
  auto g = limited.Load(path);
  const double read_ms = MsSince(read_start);
  if (!g.ok()) return ReportError(g.status());
  auto inputs = Inputs(*g, path, inputs_dir, seed, *memory);
  if (!inputs.ok()) return ReportRunFailure(inputs.status());
  if (!save_inputs.empty()) {
    if (absl::Status s = SaveInputs(*g, *inputs, save_inputs); !s.ok()) return ReportError(s);
  }
  ExecuteStats stats;
  ExecuteCache cache;  // later runs reuse the filters the first one laid out
  const ExecuteOptions options{.max_live_bytes = static_cast<int64_t>(*memory),
                               .stats = &stats,
                               .threads = threads,
                               .cache = &cache};
  const auto run_start = std::chrono::steady_clock::now();
  const double cpu_start = ProcessCpuMs();
  auto outputs = Execute(*g, *inputs, options);
  const double run_ms = MsSince(run_start);
  const double run_cpu_ms = ProcessCpuMs() - cpu_start;
  // Runs after the first: oneDNN's primitives are then compiled and cached,
  // as a runtime's are after its session is made.
  std::vector<double> again_ms, again_cpu_ms;
  for (int r = 1; r < repeat && outputs.ok(); ++r) {
    const auto start = std::chrono::steady_clock::now();
    const double cpu = ProcessCpuMs();
    outputs = Execute(*g, *inputs, options);
    again_ms.push_back(MsSince(start));
    again_cpu_ms.push_back(ProcessCpuMs() - cpu);
  }
  if (!outputs.ok()) {
    return ReportRunFailure(
        absl::Status(outputs.status().code(),
                     absl::StrFormat("%s: error: %s", path, outputs.status().message())));
  }
  if (!out_dir.empty()) {
    if (absl::Status s = MakeDirectory(out_dir); !s.ok()) return ReportError(s);
  }
  for (size_t k = 0; k < outputs->size(); ++k) {
    const Tensor& t = (*outputs)[k];
    double lo = INFINITY, hi = -INFINITY, sum = 0;
    const int64_t n = t.num_elements();
    for (int64_t i = 0; i < n; ++i) {
      double v = t.GetReal(i);
      lo = std::min(lo, v);
      hi = std::max(hi, v);
      sum += v;
    }
    std::cout << absl::StrFormat("output %s: %s", OutputLabel(*g, k), t.type().ToString());
    if (t.num_elements() > 0) {
      std::cout << absl::StrFormat(" min %g max %g mean %g", lo, hi,
                                   sum / static_cast<double>(t.num_elements()));
    }
    std::cout << "\n";
    if (!out_dir.empty()) {
      std::string file =
          std::filesystem::path(out_dir) / (FileStem(g->outputs()[k].name, "output", k) + ".npy");
      if (absl::Status s = WriteFileAtomically(file, EncodeNpy(t)); !s.ok()) return ReportError(s);
    }
  }
  std::cout << absl::StrFormat("nodes run: %d, peak live bytes: %s\n", stats.nodes_run,
                               SaturatedCountText(stats.peak_live_bytes));
  std::cout << absl::StrFormat("time: read %.1f ms, run %.1f ms (cpu %.1f ms)\n", read_ms, run_ms,
                               run_cpu_ms);
  if (!again_ms.empty()) {
    std::cout << absl::StrFormat("time of runs 2-%d: median %.1f ms (cpu %.1f ms), min %.1f ms\n",
                                 repeat, Median(again_ms), Median(again_cpu_ms),
                                 *std::min_element(again_ms.begin(), again_ms.end()));
  }
  if (profile) {
    // The stats are the last run's.
    const double last_ms = again_ms.empty() ? run_ms : again_ms.back();
    std::cout << absl::StrFormat("profile of run %d (op, nodes, ms, %% of the run):\n", repeat);
    for (const OpTime& op : stats.ops) {
      std::cout << absl::StrFormat("  %-24s %5d %9.2f %5.1f%%\n", op.op, op.nodes, op.ms,
                                   last_ms > 0 ? 100 * op.ms / last_ms : 0.0);
    }
  }
  return kExitOk;
}

int VerifyCommand(const std::string& a_path, const std::string& b_path,
                  const std::string& inputs_dir, uint64_t seed, VerifyOptions tolerance,
                  const GraphInputFlags& input, const std::string& memory_limit) {
  std::optional<size_t> memory = ParseMemoryLimit("verify", memory_limit);
  if (!memory) return kExitBadInput;
  tolerance.max_live_bytes = static_cast<int64_t>(*memory);
  GraphInputFlags limited = input;
  limited.memory_limit_bytes = static_cast<int64_t>(*memory);
  auto a = limited.Load(a_path);
  if (!a.ok()) return ReportError(a.status());
  auto b = limited.Load(b_path);
  if (!b.ok()) return ReportError(b.status());
  auto inputs = Inputs(*a, a_path, inputs_dir, seed, *memory);
  if (!inputs.ok()) return ReportRunFailure(inputs.status());
  auto report = VerifyGraphs(*a, a_path, *b, b_path, *inputs, tolerance);
  if (!report.ok()) return ReportRunFailure(report.status());
  std::cout << report->ToString();
  switch (report->verdict()) {
    case VerifyVerdict::kOk:
      return kExitOk;
    case VerifyVerdict::kIncomplete:
      return kExitUnverified;
    case VerifyVerdict::kFailed:
      break;
  }
  return kExitCheckFailed;
}

}  // namespace

void RegisterRunCommands(CLI::App& app, int* exit_code) {
  struct RunArgs {
    std::string graph, inputs, save_inputs, out, memory_limit;
    uint64_t seed = 0;
    int threads = 0;
    int repeat = 1;
    bool profile = false;
    GraphInputFlags input;
  };
  auto run_args = std::make_shared<RunArgs>();
  CLI::App* run = app.add_subcommand("run", "Execute a graph on the reference executor");
  run->add_option("GRAPH", run_args->graph, "Graph file")->required();
  auto* in_opt =
      run->add_option("--inputs", run_args->inputs, "Directory of <input name>.npy files");
  run->add_option("--random", run_args->seed, "Seed for random inputs (default 0)")
      ->excludes(in_opt);
  run->add_option("--save-inputs", run_args->save_inputs,
                  "Write the inputs it runs on to this directory as <input name>.npy files "
                  "(what --inputs reads)");
  run->add_option("-o,--output", run_args->out, "Directory to write <output name>.npy files to");
  run_args->input.AddTo(run);
  run->add_option("--memory-limit", run_args->memory_limit, kMemoryLimitHelp);
  run->add_option("--threads", run_args->threads, kThreadsHelp)->check(CLI::NonNegativeNumber);
  run->add_option("--repeat", run_args->repeat,
                  "Run N times in this process and also print the median time of runs 2..N "
                  "(oneDNN's kernels compiled; default 1)")
      ->check(CLI::Range(1, 1000000));
  run->add_flag("--profile", run_args->profile,
                "Print each op's node count and kernel time, slowest first");
  run->callback([run_args, exit_code] {
    *exit_code =
        RunCommand(run_args->graph, run_args->inputs, run_args->seed, run_args->save_inputs,
                   run_args->out, run_args->input, run_args->memory_limit, run_args->threads,
                   run_args->repeat, run_args->profile);
  });

  struct VerifyArgs {
    std::string a, b, inputs, memory_limit;
    uint64_t seed = 0;
    VerifyOptions tolerance;
    GraphInputFlags input;
  };
  auto v_args = std::make_shared<VerifyArgs>();
  CLI::App* verify = app.add_subcommand(
      "verify",
      "Run two graphs on the same inputs and compare their outputs (exit 1 if they "
      "differ beyond |b - a| <= atol + rtol * |a|, 3 if some output cannot be computed on the "
      "reference executor)");
  verify->add_option("A", v_args->a, "Reference graph")->required();
  verify->add_option("B", v_args->b, "Graph to check against A")->required();
  auto* vin = verify->add_option("--inputs", v_args->inputs, "Directory of <input name>.npy files");
  verify->add_option("--seed", v_args->seed, "Seed for random inputs (default 0)")->excludes(vin);
  verify->add_option("--rtol", v_args->tolerance.rtol, "Relative tolerance (default 1e-4)")
      ->check(CLI::NonNegativeNumber);
  verify->add_option("--atol", v_args->tolerance.atol, "Absolute tolerance (default 1e-5)")
      ->check(CLI::NonNegativeNumber);
  verify
      ->add_option("--quant-steps", v_args->tolerance.quant_steps,
                   "Quantized outputs may differ by this many steps of their encoding, instead of "
                   "the default: 1 step, or the bound derived from where B rounds differently "
                   "from A, when larger")
      ->check(CLI::NonNegativeNumber)
      ->each([v_args](const std::string&) { v_args->tolerance.derive_rounding_bound = false; });
  v_args->input.AddTo(verify);
  verify->add_option("--memory-limit", v_args->memory_limit, kMemoryLimitHelp);
  verify->add_option("--threads", v_args->tolerance.threads, kThreadsHelp)
      ->check(CLI::NonNegativeNumber);
  verify->callback([v_args, exit_code] {
    *exit_code = VerifyCommand(v_args->a, v_args->b, v_args->inputs, v_args->seed,
                               v_args->tolerance, v_args->input, v_args->memory_limit);
  });
}

}  // namespace egret::cli
