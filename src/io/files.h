// Writing output files safely: content goes to a temporary file in the same directory which is
// renamed over the target only when complete, so a failed run never leaves a half-written file
// that looks finished.
#pragma once

#include <string>

namespace orrery {

// Throws InputError (naming the path) if the file cannot be written.
void write_file_atomic(const std::string& path, const std::string& content);
// Creates a directory and its parents; throws InputError on failure.
void make_dirs(const std::string& path);

}  // namespace orrery
