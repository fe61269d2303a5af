#include "policies/kubcg/switch.h"

#include <charconv>

#include "core/error.h"

namespace orrery::kubcg {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

ImageVariants parse_variants(std::string_view text, const std::string& where) {
  auto bad = [&](std::string_view entry, const std::string& what) -> void {
    throw InputError(where + ": entry \"" + std::string(entry) + "\": " + what +
                     " (expected \"cpu=REPO:TAG,gpu=REPO:TAG\", an entry may end in \";gpus=N\")");
  };
  ImageVariants v;
  bool seen[2] = {false, false};
  if (trim(text).empty()) bad(text, "no variants");
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t comma = std::min(text.find(',', pos), text.size());
    const std::string_view entry = trim(text.substr(pos, comma - pos));
    pos = comma + 1;
    const size_t eq = entry.find('=');
    if (eq == std::string_view::npos) bad(entry, "missing \"=\"");
    const std::string_view kind = trim(entry.substr(0, eq));
    std::string_view rest = trim(entry.substr(eq + 1));
    Resource r;
    if (!parse_resource(std::string(kind), &r)) bad(entry, "kind must be cpu or gpu");
    const int k = r == Resource::kGpu ? 1 : 0;
    if (seen[k]) bad(entry, "a second " + std::string(kind) + " variant");
    seen[k] = true;
    Variant var;
    var.gpus = r == Resource::kGpu ? 1 : 0;
    const size_t semi = rest.find(';');
    if (semi != std::string_view::npos) {
      const std::string_view opt = trim(rest.substr(semi + 1));
      rest = trim(rest.substr(0, semi));
      if (opt.substr(0, 5) != "gpus=") bad(entry, "unknown option \"" + std::string(opt) + "\"");
      const std::string_view num = opt.substr(5);
      int g = -1;
      auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), g);
      if (ec != std::errc() || p != num.data() + num.size() || g < 0 || g > 64)
        bad(entry, "gpus must be an integer from 0 to 64");
      var.gpus = g;
    }
    if (rest.empty()) bad(entry, "empty image");
    if (rest.find_first_of(" \t;=") != std::string_view::npos) bad(entry, "malformed image");
    var.image = std::string(rest);
    (r == Resource::kGpu ? v.gpu : v.cpu) = var;
    if (comma == text.size()) break;
  }
  return v;
}

ImageVariants variants_of(const Pod& pod) {
  const PodSpec& s = *pod.spec;
  if (auto a = s.annotations.get(kImagesAnnotation))
    return parse_variants(*a,
                          "pod " + pod.key() + ": annotation " + std::string(kImagesAnnotation));
  ImageVariants v;
  if (s.containers.empty()) return v;
  Variant own{s.containers.front().image, static_cast<int>(s.request[kGpu])};
  (own.gpus > 0 ? v.gpu : v.cpu) = own;
  return v;
}

std::optional<fw::PodUpdate> switch_image(const Pod& pod, const ImageVariants& v, Resource r) {
  const PodSpec& s = *pod.spec;
  if (s.containers.empty()) return std::nullopt;
  const Variant& want = v.of(r);
  const Container& c = s.containers.front();
  if (want.image.empty()) return std::nullopt;
  if (c.image == want.image && c.requests[kGpu] == want.gpus) return std::nullopt;
  const std::string original = c.image + ";gpus=" + std::to_string(c.requests[kGpu]);
  const bool first_switch = !s.annotations.get(kOriginalAnnotation).has_value();
  fw::PodUpdate u;
  u.spec = [want, original, first_switch](PodSpec& spec) {
    Container& c = spec.containers.front();
    c.image = want.image;
    c.requests[kGpu] = want.gpus;
    c.limits[kGpu] = want.gpus;
    if (want.gpus > 0) c.requests_set |= 1u << kGpu;
    if (first_switch) spec.annotations.set(kOriginalAnnotation, original);
  };
  return u;
}

void Incompatibilities::load(const std::vector<std::pair<std::string, std::string>>& pairs) {
  for (const auto& p : pairs) pairs_.insert(p);
}

}  // namespace orrery::kubcg
