// `orrery version` and `orrery --version`: the version and what the binary was built from.
#include <iostream>

#include "cli/commands.h"
#include "cli/output.h"
#include "cli/version_info.h"

namespace orrery::cli {

std::string version_text() {
  return std::string("orrery ") + kVersion + "\ncommit: " + kCommit + "\ncompiler: " + kCompiler +
         " (C++20)\nbuild type: " + kBuildType + "\n";
}

void register_version(CLI::App& root, CommandTable& table) {
  CLI::App* app = root.add_subcommand("version", "Print the orrery version and build information");
  auto output = std::make_shared<std::string>("table");
  add_output_option(app, output.get());
  table.push_back({app, [output] {
                     if (*output == "table") {
                       std::cout << version_text();
                     } else {
                       print_document(Json{{"version", kVersion},
                                           {"commit", kCommit},
                                           {"compiler", kCompiler},
                                           {"build_type", kBuildType}},
                                      *output);
                     }
                     return 0;
                   }});
}

}  // namespace orrery::cli
