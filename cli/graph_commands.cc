// egret info / egret convert. (To be filled in by the foundation work.)
#include "egret/cli/commands.h"

namespace egret::cli {

void RegisterGraphCommands(CLI::App& app, int* exit_code) {
  (void)app;
  (void)exit_code;
}

}  // namespace egret::cli
