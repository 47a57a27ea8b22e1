#include "egret/cost/device_params.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "egret/support/file_io.h"
#include "nlohmann/json.hpp"

namespace egret::cost {
namespace {

using nlohmann::json;

constexpr int kFormatVersion = 1;

absl::Status Bad(std::string_view file, std::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat(std::string(file), ": error: ", std::string(what)));
}

// A positive finite number at `j[key]`.
absl::StatusOr<double> Positive(const json& j, std::string_view key, std::string_view file) {
  auto it = j.find(std::string(key));
  if (it == j.end()) return Bad(file, absl::StrCat("missing \"", std::string(key), "\""));
  if (!it->is_number())
    return Bad(file, absl::StrCat("\"", std::string(key), "\" is not a number"));
  const double v = it->get<double>();
  if (!std::isfinite(v) || v <= 0) {
    return Bad(file, absl::StrCat("\"", std::string(key), "\" must be a positive number"));
  }
  return v;
}

std::string Text(const json& j, std::string_view key) {
  auto it = j.find(std::string(key));
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

std::string_view FitParamKey(FitParam p) {
  switch (p) {
    case FitParam::kMatrix8:
      return "matrix_int8_macs_per_ns";
    case FitParam::kMatrix16:
      return "matrix_16bit_macs_per_ns";
    case FitParam::kHvxClock:
      return "hvx_cycles_per_ns";
    case FitParam::kDdr:
      return "ddr_bytes_per_ns";
    case FitParam::kDispatch:
      return "dispatch_ns";
    case FitParam::kInference:
      return "inference_ns";
  }
  return "?";
}

absl::StatusOr<DeviceParams> ParseDeviceParams(std::string_view text, std::string_view file) {
  json j = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Bad(file, "not valid JSON");
  if (!j.is_object()) return Bad(file, "a device file is a JSON object");
  auto version = j.find("egret_device_format");
  if (version == j.end() || !version->is_number_integer() ||
      version->get<int>() != kFormatVersion) {
    return Bad(file, absl::StrFormat("\"egret_device_format\" must be %d", kFormatVersion));
  }
  DeviceParams d;
  d.name = Text(j, "name");
  d.chipset = Text(j, "chipset");
  if (d.name.empty()) return Bad(file, "missing \"name\"");
  auto params = j.find("parameters");
  if (params == j.end() || !params->is_object()) return Bad(file, "missing \"parameters\"");
  for (int i = 0; i < kNumFitParams; ++i) {
    const std::string_view key = FitParamKey(static_cast<FitParam>(i));
    auto p = params->find(std::string(key));
    if (p == params->end() || !p->is_object()) {
      return Bad(file, absl::StrCat("missing parameter \"", std::string(key), "\""));
    }
    absl::StatusOr<double> v = Positive(*p, "value", file);
    if (!v.ok())
      return Bad(file, absl::StrCat("parameter \"", std::string(key),
                                    "\": ", std::string(v.status().message())));
    d.fitted[i] = *v;
    d.origin[i] = Text(*p, "origin");
  }
  absl::StatusOr<double> vtcm = Positive(j, "vtcm_bytes", file);
  if (!vtcm.ok()) return vtcm.status();
  if (*vtcm > 1e12) return Bad(file, "\"vtcm_bytes\" is implausibly large");
  d.vtcm_bytes = static_cast<int64_t>(*vtcm);
  absl::StatusOr<double> fixed = Positive(j, "off_htp_fixed_ns", file);
  if (!fixed.ok()) return fixed.status();
  absl::StatusOr<double> bw = Positive(j, "off_htp_bytes_per_ns", file);
  if (!bw.ok()) return bw.status();
  d.off_htp_fixed_ns = *fixed;
  d.off_htp_bytes_per_ns = *bw;
  d.vtcm_origin = Text(j, "vtcm_origin");
  d.off_htp_origin = Text(j, "off_htp_origin");
  if (auto n = j.find("notes"); n != j.end() && n->is_array()) {
    for (const json& line : *n) {
      if (line.is_string()) d.notes.push_back(line.get<std::string>());
    }
  }
  return d;
}

std::string DeviceParamsJson(const DeviceParams& d) {
  json j = json::object();
  j["egret_device_format"] = kFormatVersion;
  j["name"] = d.name;
  j["chipset"] = d.chipset;
  json params = json::object();
  for (int i = 0; i < kNumFitParams; ++i) {
    params[std::string(FitParamKey(static_cast<FitParam>(i)))] = {{"value", d.fitted[i]},
                                                                  {"origin", d.origin[i]}};
  }
  j["parameters"] = params;
  j["vtcm_bytes"] = d.vtcm_bytes;
  j["vtcm_origin"] = d.vtcm_origin;
  j["off_htp_fixed_ns"] = d.off_htp_fixed_ns;
  j["off_htp_bytes_per_ns"] = d.off_htp_bytes_per_ns;
  j["off_htp_origin"] = d.off_htp_origin;
  j["notes"] = d.notes;
  return j.dump(2) + "\n";
}

std::vector<std::string> ShippedDevices(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

absl::StatusOr<DeviceParams> LoadDeviceFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return text.status();
  return ParseDeviceParams(*text, path);
}

absl::StatusOr<DeviceParams> LoadDevice(std::string_view name_or_path, const std::string& dir) {
  std::string path(name_or_path);
  const bool is_path = path.find('/') != std::string::npos ||
                       (path.size() > 5 && path.substr(path.size() - 5) == ".json");
  if (!is_path) {
    path = (std::filesystem::path(dir) / (std::string(name_or_path) + ".json")).string();
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      const std::vector<std::string> names = ShippedDevices(dir);
      return absl::InvalidArgumentError(absl::StrCat(
          "egret: error: unknown device '", std::string(name_or_path),
          "' (shipped: ", names.empty() ? std::string("none") : absl::StrJoin(names, ", "),
          "; or give a device file made by `egret calibrate`)"));
    }
  }
  return LoadDeviceFile(path);
}

DeviceParams PublicPrior(std::string_view name, std::string_view chipset) {
  DeviceParams d;
  d.name = std::string(name);
  d.chipset = std::string(chipset);
  auto set = [&d](FitParam p, double v, std::string origin) {
    d.fitted[static_cast<int>(p)] = v;
    d.origin[static_cast<int>(p)] = std::move(origin);
  };
  // docs/cost-model.md, "Priors", gives the sources.
  set(FitParam::kMatrix8, 22500,
      "prior: 45 TOPS INT8 (Qualcomm's published figure for the Snapdragon X Elite NPU) = 22,500 "
      "MACs per ns");
  set(FitParam::kMatrix16, 11250, "prior: half the INT8 rate (16-bit operands)");
  set(FitParam::kHvxClock, 1.0, "prior: Hexagon clocks of about 1 GHz");
  set(FitParam::kDdr, 60, "prior: LPDDR5X, about 60-77 GB/s on these phones");
  set(FitParam::kDispatch, 2000, "prior: an assumption (a few us per node)");
  set(FitParam::kInference, 160000,
      "prior: about 160 us of host-side overhead per graph execution (reported for 8 Gen 2, "
      "../shared/anchors.md)");
  d.vtcm_origin = "public: 8 MiB of VTCM on the HTP of these chipsets (docs/cost-model.md)";
  d.off_htp_origin =
      "assumption: a CPU fallback splits the graph (0.5 ms) and moves its data through DDR at 4 "
      "bytes per ns; none of the measured networks has one";
  return d;
}

}  // namespace egret::cost
