// egret: command-line entry point. Subcommands live in their own files
// (cli/commands.h); this file only wires them up and maps errors to exit codes.
#include <algorithm>
#include <cstdio>
#include <new>
#include <stdexcept>
#include <string>

#include "CLI/CLI.hpp"
#include "cli/commands.h"
#include "cli/did_you_mean.h"
#include "egret/executor/executor.h"
#include "egret/support/diagnostic.h"

int main(int argc, char** argv) {
  // The executor (run, verify, optimize --verify) frees and reallocates
  // values node by node: keep that memory in the process.
  egret::KeepFreedMemoryForReuse();
  CLI::App app{"egret: equality-saturation graph optimizer for Hexagon HTP/HVX"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "egret " EGRET_VERSION);
  // Usage errors are one line on stderr, like every other egret error, with
  // the closest name to a mistyped subcommand or option.
  app.failure_message([](const CLI::App* a, const CLI::Error& e) {
    return std::string("egret: error: ") + e.what() + egret::cli::DidYouMean(*a, e) +
           " (see --help)\n";
  });
  int exit_code = egret::kExitOk;
  egret::cli::RegisterAllCommands(app, &exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? egret::kExitOk : egret::kExitBadInput;
  } catch (const std::bad_alloc&) {
    // A legal input too large for this machine's memory; the readers reject
    // what is too large for any machine (shapes above 2^56 elements).
    std::fputs("egret: error: out of memory: the input is too large for this machine\n", stderr);
    return egret::kExitBadInput;
  } catch (const std::length_error&) {
    std::fputs("egret: error: out of memory: the input is too large for this machine\n", stderr);
    return egret::kExitBadInput;
  } catch (const std::exception& e) {
    // Nothing else should get here; if it does, one line and a clean exit.
    std::string what = e.what();
    std::replace(what.begin(), what.end(), '\n', ' ');
    std::fprintf(stderr, "egret: error: internal error: %s\n", what.c_str());
    return egret::kExitBadInput;
  }
  return exit_code;
}
