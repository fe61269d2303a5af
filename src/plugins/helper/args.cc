#include "plugins/helper/args.h"

#include <string>

namespace orrery::plugins {

void expect_arg_keys(const yaml::Ctx& args, std::initializer_list<const char*> allowed) {
  if (!args.defined()) return;
  args.expect_map();
  for (const std::string& k : args.keys()) {
    if (k == "apiVersion" || k == "kind") continue;
    bool ok = false;
    for (const char* a : allowed) ok = ok || k == a;
    if (!ok) {
      std::string list;
      for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      args.child(k).fail(list.empty() ? "unknown field (this plugin takes no args)"
                                      : "unknown field (expected one of: " + list + ")");
    }
  }
}

}  // namespace orrery::plugins
