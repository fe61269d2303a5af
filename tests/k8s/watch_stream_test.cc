// The watch stream's framing and decoding (k8s/watch_stream.h), which ApiClient::stream and the
// Informer use and fuzz/watch_stream.cc fuzzes.
#include "k8s/watch_stream.h"

#include <gtest/gtest.h>

#include "framework/realtime_loop.h"
#include "k8s/api_backend.h"

namespace orrery::k8s {
namespace {

std::vector<std::string> split_in_chunks(std::string_view stream, size_t chunk) {
  std::vector<std::string> lines;
  LineSplitter s;
  for (size_t pos = 0; pos < stream.size(); pos += chunk)
    EXPECT_TRUE(s.feed(stream.substr(pos, chunk), [&](std::string_view l) {
      lines.emplace_back(l);
      return true;
    }));
  if (!s.rest().empty()) lines.push_back(s.rest());
  return lines;
}

TEST(LineSplitter, SameLinesWhereverTheChunksAreCut) {
  const std::string stream = "{\"a\":1}\n\n{\"b\":2}\r\n{\"c\":3}";
  const std::vector<std::string> want = {"{\"a\":1}", "{\"b\":2}\r", "{\"c\":3}"};
  for (size_t chunk = 1; chunk <= stream.size(); ++chunk)
    EXPECT_EQ(split_in_chunks(stream, chunk), want) << "chunk " << chunk;
}

TEST(LineSplitter, StopsWhenTheCallerDoes) {
  LineSplitter s;
  int calls = 0;
  EXPECT_FALSE(s.feed("a\nb\nc\n", [&](std::string_view) { return ++calls < 2; }));
  EXPECT_EQ(calls, 2);
}

TEST(DecodeWatchEvent, TypeAndObject) {
  auto ev = decode_watch_event(R"({"type":"ADDED","object":{"metadata":{"name":"p"}}})");
  ASSERT_TRUE(ev);
  EXPECT_EQ(ev->type, "ADDED");
  EXPECT_EQ(ev->object["metadata"]["name"], "p");
}

TEST(DecodeWatchEvent, MalformedLinesAreNotEvents) {
  for (const char* line :
       {"", "not json", "[]", R"({"type":"ADDED"})", R"({"type":1,"object":{}})",
        R"({"type":"ADDED","object":[]})", R"({"type":"ADDED","object":{}} trailing)"})
    EXPECT_FALSE(decode_watch_event(line)) << line;
}

TEST(DecodeListPage, ItemsAndContinuation) {
  auto page = decode_list_page(
      R"({"kind":"PodList","metadata":{"resourceVersion":"7","continue":"tok"},"items":[{"a":1},{"b":2}]})");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->items.size(), 2u);
  EXPECT_EQ(page->resource_version, "7");
  EXPECT_EQ(page->continue_token, "tok");
  auto empty = decode_list_page(R"({"items":null,"metadata":{"resourceVersion":5}})");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->items.empty());
  EXPECT_EQ(empty->resource_version, "");  // not a string: ignored
  EXPECT_FALSE(decode_list_page(R"({"items":{}})"));
  EXPECT_FALSE(decode_list_page(R"({"metadata":{}})"));
  EXPECT_FALSE(decode_list_page("[]"));
}

// Found by fuzz/watch_stream.cc (fuzz/corpus/watch_stream/regress-node-without-name): a Node
// event with an empty (or non-string) metadata.name reached ClusterState::add_node, whose
// InputError escaped the event loop and would end `orrery serve`. Such objects are now skipped
// like other malformed ones.
TEST(ApiBackendEvents, ObjectsWithoutUsableNamesAreSkipped) {
  fw::RealTimeLoop loop;
  ClusterConfig c;
  c.server = "http://127.0.0.1:9";
  c.https = false;
  c.host = "127.0.0.1";
  c.port = 9;
  ApiClient client(c);
  ApiBackendOptions options;
  options.workers = 0;
  ApiBackend backend(client, loop, options);
  InformerSink& sink = backend;
  const JsonValue alloc = {{"allocatable", {{"cpu", "4"}, {"memory", "4Gi"}, {"pods", "10"}}}};
  sink.event("Node", "ADDED", {{"metadata", {{"name", ""}}}, {"status", alloc}});
  sink.event("Node", "ADDED", {{"metadata", {{"name", 5}}}, {"status", alloc}});
  sink.event("Node", "ADDED", {{"metadata", {{"name", "n1"}}}, {"status", alloc}});
  sink.event("Pod", "ADDED",
             {{"metadata", {{"name", 7}}}, {"spec", {{"containers", {{{"name", "c"}}}}}}});
  sink.event("Pod", "ADDED",
             {{"metadata", {{"name", "p"}}}, {"spec", {{"containers", {{{"name", "c"}}}}}}});
  loop.post([&] { loop.stop(); });
  EXPECT_NO_THROW(loop.run());
  EXPECT_EQ(backend.state().node_count(), 1u);
  EXPECT_EQ(backend.state().pod_count(), 1u);
  EXPECT_EQ(backend.skipped_objects(), 3u);
}

}  // namespace
}  // namespace orrery::k8s
