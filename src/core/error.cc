#include "core/error.h"

namespace orrery {

std::string error_location(const std::string& file, int line, const std::string& field) {
  std::string out = file;
  if (line > 0) out += (out.empty() ? "line " : ":") + std::to_string(line);
  if (!field.empty()) out += (out.empty() ? "" : ": ") + field;
  return out;
}

}  // namespace orrery
