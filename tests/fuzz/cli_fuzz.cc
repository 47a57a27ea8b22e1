// libFuzzer target for the egret command line: the app is built as
// cli/main.cc builds it, every subcommand's callback (which would run the
// command) is replaced by one that does nothing, and argv is the input split
// at NUL bytes. Parse errors and --help must come out as CLI11 errors, never
// as a crash; nothing reads or writes a file.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "CLI/CLI.hpp"
#include "cli/commands.h"
#include "fuzz_util.h"

namespace {

// CLI::App keeps a subcommand's callback in a protected member; a derived
// class may name it, which gives a pointer to member usable on any App.
struct CallbackOf : CLI::App {
  static constexpr std::function<void()> CLI::App::*kMember = &CallbackOf::final_callback_;
};

// Moves the callbacks of `app`'s subcommands, recursively, into `kept` (they
// own the state their options write to, so they must outlive the parse) and
// leaves no-ops in their place.
void DisarmCallbacks(CLI::App* app, std::vector<std::function<void()>>* kept) {
  for (CLI::App* sub : app->get_subcommands([](CLI::App*) { return true; })) {
    kept->push_back(std::move(sub->*CallbackOf::kMember));
    sub->*CallbackOf::kMember = [] {};
    DisarmCallbacks(sub, kept);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 4096) return 0;
  std::vector<std::string> args = {"egret"};
  std::string_view rest = egret::fuzz::AsText(data, size);
  while (!rest.empty()) {
    const size_t nul = rest.find('\0');
    args.emplace_back(rest.substr(0, nul));
    rest = nul == std::string_view::npos ? std::string_view() : rest.substr(nul + 1);
    if (args.size() > 64) break;
  }
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  CLI::App app{"egret: equality-saturation graph optimizer for Hexagon HTP/HVX"};
  app.require_subcommand(1);
  int exit_code = 0;
  egret::cli::RegisterAllCommands(app, &exit_code);
  std::vector<std::function<void()>> kept;
  DisarmCallbacks(&app, &kept);
  try {
    app.parse(static_cast<int>(args.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    std::ostringstream out, err;
    (void)app.exit(e, out, err);  // formats --help and the error text
  }
  egret::fuzz::Check(exit_code == 0, "a command ran");
  return 0;
}
