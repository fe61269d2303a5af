// A scratch directory for one test: unique to the process (so concurrent test runs — ctest -j,
// other checkouts on the same machine — never share one) and removed with everything in it when
// it goes out of scope, also when the test fails.
#pragma once

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>

namespace orrery::testing {

class ScratchDir {
 public:
  explicit ScratchDir(const std::string& name)
      : root_(std::filesystem::temp_directory_path() /
              ("orrery-" + name + "-" + std::to_string(::getpid()) + "-" +
               std::to_string(counter()++))) {
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_);
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(root_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& root() const { return root_; }
  // The absolute path of `rel` inside the directory (not created).
  std::string path(const std::string& rel) const { return (root_ / rel).string(); }
  // Writes `text` to `rel` (creating parent directories) and returns its path.
  std::string write(const std::string& rel, const std::string& text) const {
    const std::filesystem::path p = root_ / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }

 private:
  static std::atomic<int>& counter() {
    static std::atomic<int> n{0};
    return n;
  }
  std::filesystem::path root_;
};

}  // namespace orrery::testing
