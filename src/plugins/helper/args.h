// Small helpers for reading pluginConfig args (strict, like upstream's decoding).
#pragma once

#include <initializer_list>

#include "io/yaml_util.h"

namespace orrery::plugins {

// Fails naming the field when `args` has a key outside `allowed` ("apiVersion" and "kind" are
// always allowed: upstream args may carry them). Does nothing when args are absent.
void expect_arg_keys(const yaml::Ctx& args, std::initializer_list<const char*> allowed);

}  // namespace orrery::plugins
