#include "cli/device_option.h"

#include <cstdio>
#include <filesystem>
#include <system_error>
#include <utility>

namespace egret::cli {

std::string DefaultDevicesDir() {
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  std::filesystem::path dir = exe.parent_path().parent_path() / "share" / "egret" / "devices";
  if (ec || !std::filesystem::exists(dir, ec)) return EGRET_DEVICES_DIR;
  return dir.string();
}

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
