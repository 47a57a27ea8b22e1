// The egret subcommands. Each file cli/<x>_command(s).cc defines one Register
// function that adds its subcommand(s) to the app; main.cc calls them all.
// A subcommand's callback stores its process exit code (see
// support/diagnostic.h: 0 ok, 1 a check failed, 2 bad input) in *exit_code
// and prints errors as one line on stderr.
#ifndef EGRET_CLI_COMMANDS_H_
#define EGRET_CLI_COMMANDS_H_

#include <iostream>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "egret/support/diagnostic.h"

namespace egret::cli {

void RegisterGraphCommands(CLI::App& app, int* exit_code);    // info, convert
void RegisterRulesCommands(CLI::App& app, int* exit_code);    // rules check/list/dump
void RegisterExtractCommand(CLI::App& app, int* exit_code);   // extract
void RegisterRunCommands(CLI::App& app, int* exit_code);      // run, verify
void RegisterOptimizeCommand(CLI::App& app, int* exit_code);  // optimize
void RegisterCompareCommand(CLI::App& app, int* exit_code);   // compare
void RegisterOpsCommand(CLI::App& app, int* exit_code);       // ops
void RegisterCostCommands(CLI::App& app, int* exit_code);     // cost, calibrate

// Prints a failed status's message as one line on stderr and returns its
// exit code (ExitCodeFor: 2 bad input, 1 a failed check).
inline int ReportError(const absl::Status& status) {
  std::cerr << status.message() << "\n";
  return ExitCodeFor(status);
}

// The help of --onnx-external-data (convert, optimize).
inline constexpr char kOnnxExternalDataHelp[] =
    "ONNX output: initializers of 1 KiB or more go to OUT.data beside OUT.onnx (ONNX external "
    "data; always done for a model over protobuf's 2 GB)";

// Every subcommand above, in the order `egret --help` lists them (main.cc and
// the command-line fuzz target build the same app).
inline void RegisterAllCommands(CLI::App& app, int* exit_code) {
  RegisterGraphCommands(app, exit_code);
  RegisterRulesCommands(app, exit_code);
  RegisterExtractCommand(app, exit_code);
  RegisterRunCommands(app, exit_code);
  RegisterOptimizeCommand(app, exit_code);
  RegisterCompareCommand(app, exit_code);
  RegisterCostCommands(app, exit_code);
  RegisterOpsCommand(app, exit_code);
}

}  // namespace egret::cli

#endif  // EGRET_CLI_COMMANDS_H_
