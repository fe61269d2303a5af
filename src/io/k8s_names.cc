#include "io/k8s_names.h"

namespace orrery {
namespace {

bool alnum(char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
}

const char* kQualifiedNameHelp =
    "a qualified name is an optional DNS subdomain prefix and '/', then a name of alphanumeric "
    "characters, '-', '_' or '.' that starts and ends with an alphanumeric character (at most 63)";

}  // namespace

bool is_dns_subdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find('.', start);
    if (end == std::string_view::npos) end = s.size();
    std::string_view part = s.substr(start, end - start);
    if (part.empty() || part.size() > 63 || part.front() == '-' || part.back() == '-') return false;
    for (char ch : part)
      if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-')) return false;
    start = end + 1;
  }
  return true;
}

bool is_qualified_name_part(std::string_view s) {
  if (s.size() > 63) return false;
  if (s.empty()) return true;
  if (!alnum(s.front()) || !alnum(s.back())) return false;
  for (char ch : s)
    if (!alnum(ch) && ch != '-' && ch != '_' && ch != '.') return false;
  return true;
}

bool is_qualified_name(std::string_view s) {
  const size_t slash = s.find('/');
  if (slash != std::string_view::npos && !is_dns_subdomain(s.substr(0, slash))) return false;
  const std::string_view name = slash == std::string_view::npos ? s : s.substr(slash + 1);
  return !name.empty() && is_qualified_name_part(name);
}

std::string container_resource_name_error(std::string_view name) {
  if (!is_qualified_name(name)) {
    return "invalid resource name \"" + std::string(name) + "\": " + kQualifiedNameHelp;
  }
  if (name.find('/') == std::string_view::npos) {
    if (name == "cpu" || name == "memory" || name == "ephemeral-storage" ||
        name.starts_with("hugepages-")) {
      return "";
    }
    return "invalid resource name \"" + std::string(name) +
           "\": must be a standard resource for containers (cpu, memory, ephemeral-storage, "
           "hugepages-<size>) or an extended resource with a domain prefix such as "
           "example.com/foo";
  }
  if (name.find("kubernetes.io/") != std::string_view::npos) return "";  // native, prefixed
  if (name.starts_with("requests.") || !is_qualified_name("requests." + std::string(name))) {
    return "invalid resource name \"" + std::string(name) +
           "\": doesn't follow extended resource name standard (a domain prefix and a name, such "
           "as example.com/foo, not starting with \"requests.\")";
  }
  return "";
}

std::string node_resource_name_error(std::string_view name) {
  if (name == "pods") return "";
  std::string e = container_resource_name_error(name);
  if (!e.empty() && name.find('/') == std::string_view::npos && is_qualified_name(name)) {
    return "invalid resource name \"" + std::string(name) +
           "\": expected cpu, memory, ephemeral-storage, pods, hugepages-<size> or an extended "
           "resource with a domain prefix such as example.com/foo";
  }
  return e;
}

const std::vector<std::string>& well_known_resource_names() {
  static const std::vector<std::string> names = {"cpu", "memory", "ephemeral-storage", "pods",
                                                 "nvidia.com/gpu"};
  return names;
}

}  // namespace orrery
