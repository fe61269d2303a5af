// `orrery version` and `orrery --version`: the version and what the binary was built from.
#include <iostream>

#include "cli/commands.h"
#include "cli/version_info.h"

namespace orrery::cli {

std::string version_text() {
  return std::string("orrery ") + kVersion + "\ncommit: " + kCommit + "\ncompiler: " + kCompiler +
         " (C++20)\nbuild type: " + kBuildType + "\n";
}

void register_version(CLI::App& root, CommandTable& table) {
  CLI::App* app = root.add_subcommand("version", "Print the orrery version and build information");
  table.push_back({app, [] {
                     std::cout << version_text();
                     return 0;
                   }});
}

}  // namespace orrery::cli
