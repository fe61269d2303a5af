// Watch-stream frames (k8s/watch_stream.h) and what `orrery serve` does with them: the body of a
// watch arrives in chunks cut anywhere; LineSplitter frames it into lines, decode_watch_event
// decodes each, and the events go to a real ApiBackend (its informer sink), which turns the
// objects into its cluster view — node_from_json / pod_from_json, orphans, rebinds, deletes.
// Input: [chunk:1][kind:1] then the stream. chunk % 64 + 1 is the chunk size; kind % 3 picks the
// informer (PriorityClass, Node, Pod) the stream belongs to, and its bit 2 makes the first line
// a list page instead (decode_list_page, then the sink's replace), as the informer's list does.
// Like the informer, an ERROR event ends the stream and the unterminated tail is the last line.
// Invariant: the view's indexes stay consistent (every bound pod on a live node and listed there).
#include "k8s/watch_stream.h"
#include "cluster_check.h"
#include "framework/realtime_loop.h"
#include "k8s/api_backend.h"

using namespace orrery;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::quiet_logs();
  if (size < 2) return 0;
  static const char* kKinds[] = {"PriorityClass", "Node", "Pod"};
  const size_t chunk = data[0] % 64 + 1;
  const std::string kind = kKinds[data[1] % 3];
  bool list_first = data[1] & 4;
  const std::string_view stream = fuzz::as_text(data + 2, size - 2);

  static fw::RealTimeLoop loop;
  static k8s::ApiClient client([] {
    k8s::ClusterConfig c;
    c.server = "http://127.0.0.1:9";
    c.https = false;
    c.host = "127.0.0.1";
    c.port = 9;
    return c;
  }());
  k8s::ApiBackendOptions options;
  options.workers = 0;
  k8s::ApiBackend backend(client, loop, options);
  k8s::InformerSink& sink = backend;

  auto on_line = [&](std::string_view line) {
    if (list_first) {
      list_first = false;
      if (std::optional<k8s::ListPage> page = k8s::decode_list_page(line))
        sink.replace(kind, std::move(page->items));
      return true;
    }
    std::optional<k8s::WatchEvent> ev = k8s::decode_watch_event(line);
    if (!ev) return true;
    FUZZ_CHECK(ev->object.is_object(), std::string(line));
    if (ev->type == "ERROR") return false;
    (void)k8s::resource_version(ev->object);
    if (ev->type == "ADDED" || ev->type == "MODIFIED" || ev->type == "DELETED")
      sink.event(kind, ev->type, std::move(ev->object));
    return true;
  };
  k8s::LineSplitter lines;
  bool open = true;
  for (size_t pos = 0; open && pos < stream.size(); pos += chunk)
    open = lines.feed(stream.substr(pos, chunk), on_line);
  if (open && !lines.rest().empty()) on_line(lines.rest());

  loop.post([] { loop.stop(); });
  loop.run();
  fuzz::check_indexes(backend.state());
  return 0;
}
