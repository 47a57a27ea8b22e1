#include "cli/data_dir.h"

#include <filesystem>
#include <system_error>

namespace egret::cli {

std::string DataDir(std::string_view name, std::string_view marker, const char* source_dir) {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  const std::filesystem::path dir = exe.parent_path().parent_path() / "share" / "egret" / name;
  if (ec || !std::filesystem::exists(marker.empty() ? dir : dir / marker, ec) || ec) {
    return source_dir;
  }
  return dir.string();
}

}  // namespace egret::cli
