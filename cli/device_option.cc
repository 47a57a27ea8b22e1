#include "cli/device_option.h"

#include <cstdio>
#include <utility>

#include "cli/data_dir.h"

namespace egret::cli {

std::string DefaultDevicesDir() { return DataDir("devices", "", EGRET_DEVICES_DIR); }

std::shared_ptr<const cost::DeviceParams> DeviceOption(const std::string& value, bool* ok) {
  *ok = true;
  if (value.empty()) return nullptr;
  absl::StatusOr<cost::DeviceParams> d = cost::LoadDevice(value, DefaultDevicesDir());
  if (!d.ok()) {
    std::fprintf(stderr, "%s\n", std::string(d.status().message()).c_str());
    *ok = false;
    return nullptr;
  }
  return std::make_shared<const cost::DeviceParams>(*std::move(d));
}

}  // namespace egret::cli
