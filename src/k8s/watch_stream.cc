#include "k8s/watch_stream.h"

namespace orrery::k8s {

bool LineSplitter::feed(std::string_view chunk,
                        const std::function<bool(std::string_view line)>& on_line) {
  pending_.append(chunk);
  size_t start = 0;
  for (size_t nl; (nl = pending_.find('\n', start)) != std::string::npos; start = nl + 1) {
    std::string_view line(pending_.data() + start, nl - start);
    if (line.empty()) continue;
    if (!on_line(line)) return false;
  }
  pending_.erase(0, start);
  return true;
}

std::optional<ListPage> decode_list_page(std::string_view body) {
  JsonValue page = JsonValue::parse(body, nullptr, false);
  if (!page.is_object()) return std::nullopt;
  auto items = page.find("items");
  if (items == page.end() || !(items->is_array() || items->is_null())) return std::nullopt;
  ListPage out;
  if (items->is_array())
    for (auto& it : *items) out.items.push_back(std::move(it));
  auto meta = page.find("metadata");
  if (meta != page.end() && meta->is_object()) {
    auto rv = meta->find("resourceVersion");
    if (rv != meta->end() && rv->is_string()) out.resource_version = rv->get<std::string>();
    auto cont = meta->find("continue");
    if (cont != meta->end() && cont->is_string()) out.continue_token = cont->get<std::string>();
  }
  return out;
}

std::optional<WatchEvent> decode_watch_event(std::string_view line) {
  JsonValue ev = JsonValue::parse(line, nullptr, false);
  if (!ev.is_object()) return std::nullopt;
  auto type = ev.find("type");
  auto object = ev.find("object");
  if (type == ev.end() || !type->is_string() || object == ev.end() || !object->is_object())
    return std::nullopt;
  return WatchEvent{type->get<std::string>(), std::move(*object)};
}

}  // namespace orrery::k8s
