#include "plugins/notmodelled/not_modelled.h"

namespace orrery::plugins {

const std::vector<std::string>& not_modelled_plugins() {
  static const std::vector<std::string> kNames = {"DynamicResources"};
  return kNames;
}

}  // namespace orrery::plugins
