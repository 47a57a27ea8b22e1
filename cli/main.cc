// egret: command-line entry point. Each subcommand lives in its own file and
// only parses options, calls the library and prints.
#include <iostream>

#include "CLI/CLI.hpp"
#include "egret/support/diagnostic.h"

int main(int argc, char** argv) {
  CLI::App app{"egret: equality-saturation graph optimizer for Hexagon HTP/HVX"};
  app.require_subcommand(1);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? egret::kExitOk : egret::kExitBadInput;
  }
  return egret::kExitOk;
}
