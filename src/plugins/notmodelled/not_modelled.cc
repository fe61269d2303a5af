#include "plugins/notmodelled/not_modelled.h"

namespace orrery::plugins {

const std::vector<std::string>& not_modelled_plugins() {
  static const std::vector<std::string> kNames = {
      "NodePorts",  "VolumeRestrictions", "NodeVolumeLimits", "VolumeBinding",
      "VolumeZone", "DynamicResources",   "ImageLocality"};
  return kNames;
}

}  // namespace orrery::plugins
