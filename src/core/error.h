// Errors raised on bad user input. Every message names where the problem is (file, line, field)
// and what was expected; the CLI turns them into exit code 1.
#pragma once

#include <stdexcept>
#include <string>

namespace orrery {

class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& message) : std::runtime_error(message) {}
};

// "FILE:LINE: field: what" with empty parts left out.
std::string error_location(const std::string& file, int line, const std::string& field);

}  // namespace orrery
