// Version and build facts of this binary (generated at build time by cmake/version_info.cmake).
#pragma once

namespace orrery::cli {

extern const char* const kVersion;    // the project version, e.g. "0.1.0"
extern const char* const kCommit;     // git commit the binary was built from ("-dirty": changes)
extern const char* const kCompiler;   // e.g. "GNU 12.2.0"
extern const char* const kBuildType;  // CMAKE_BUILD_TYPE

}  // namespace orrery::cli
