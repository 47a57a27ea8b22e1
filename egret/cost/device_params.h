// A device for the latency model (cost/latency_model.h): the parameters that
// turn a node's work into predicted time on one chipset's HTP, each with
// where its value comes from (fitted by `egret calibrate` on measured
// whole-network latencies, or a public figure). One JSON file per device;
// egret ships egret/cost/devices/<name>.json (docs/cost-model.md).
#ifndef EGRET_COST_DEVICE_PARAMS_H_
#define EGRET_COST_DEVICE_PARAMS_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace egret::cost {

// The parameters `egret calibrate` fits, in the order of DeviceParams::fitted.
enum class FitParam : uint8_t {
  kMatrix8,    // matrix-unit multiply-accumulates per ns, 8-bit activations
  kMatrix16,   // the same, 16-bit activations (fp16: float networks run in fp16)
  kHvxClock,   // HVX cycles per ns (rule costs are in cycles)
  kDdr,        // bytes per ns between DDR and the HTP
  kDispatch,   // ns per node the HTP runs (its dispatch and synchronization)
  kInference,  // ns per inference (graph launch)
};
inline constexpr int kNumFitParams = 6;

// "matrix_int8_macs_per_ns", ... (the JSON keys).
std::string_view FitParamKey(FitParam p);

struct DeviceParams {
  std::string name;     // "snapdragon-8-gen-3"
  std::string chipset;  // "Snapdragon 8 Gen 3", as in latency.tsv's chipset column
  // The fitted parameters (all positive), indexed by FitParam.
  std::array<double, kNumFitParams> fitted = {};
  // Where each fitted value comes from ("fitted: ...", "public figure: ...").
  std::array<std::string, kNumFitParams> origin = {};
  // Not fitted (public figures): the VTCM capacity, and the CPU fallback of an
  // op no HTP implementation computes (a fixed ns for splitting the graph and
  // synchronizing, and bytes per ns of its data through DDR to the CPU).
  int64_t vtcm_bytes = int64_t{8} << 20;
  double off_htp_fixed_ns = 500000;
  double off_htp_bytes_per_ns = 4;
  std::string vtcm_origin, off_htp_origin;
  // What the fit saw and how well it did (free text lines, written by
  // `egret calibrate`).
  std::vector<std::string> notes;

  double at(FitParam p) const { return fitted[static_cast<int>(p)]; }
};

// Parses a device file's JSON; errors name `file` and what is wrong.
absl::StatusOr<DeviceParams> ParseDeviceParams(std::string_view json, std::string_view file);
// The JSON ParseDeviceParams reads, pretty-printed, ending in a newline.
std::string DeviceParamsJson(const DeviceParams& d);

// The devices egret ships: the directory `dir` (egret/cost/devices, or its
// installed copy) and the names of its *.json files, sorted.
std::vector<std::string> ShippedDevices(const std::string& dir);
// The device file at `path` (read as support/file_io.h's ReadFile reads: a
// FIFO or directory is refused, not waited on); errors start with the path.
absl::StatusOr<DeviceParams> LoadDeviceFile(const std::string& path);

// `name_or_path`: a path to a JSON file (it has a '/' or ends in ".json"), or
// the name of a shipped device in `dir`. Unknown names list the shipped ones.
absl::StatusOr<DeviceParams> LoadDevice(std::string_view name_or_path, const std::string& dir);

// The parameters before any fit: public figures for an HTP of the Snapdragon
// 8 Gen 3 class (docs/cost-model.md gives each source). They start a fit and
// are its prior.
DeviceParams PublicPrior(std::string_view name, std::string_view chipset);

}  // namespace egret::cost

#endif  // EGRET_COST_DEVICE_PARAMS_H_
