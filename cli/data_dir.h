// Where the egret command finds the data it ships (the rule library, the
// device files): share/egret/<name> next to an installed egret
// (<prefix>/bin/egret), else the source tree's copy the build names.
#ifndef EGRET_CLI_DATA_DIR_H_
#define EGRET_CLI_DATA_DIR_H_

#include <string>
#include <string_view>

namespace egret::cli {

// <prefix>/share/egret/<name> when it holds `marker` (or, for an empty
// marker, exists), else `source_dir`.
std::string DataDir(std::string_view name, std::string_view marker, const char* source_dir);

}  // namespace egret::cli

#endif  // EGRET_CLI_DATA_DIR_H_
