#include <iostream>

#include "cli/commands.h"

namespace orrery::cli {

void register_version(CLI::App& root, CommandTable& table) {
  CLI::App* app = root.add_subcommand("version", "Print the orrery version");
  table.push_back({app, [] {
                     std::cout << "orrery 0.1.0\n";
                     return 0;
                   }});
}

}  // namespace orrery::cli
