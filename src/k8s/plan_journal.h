// The plan journal: the replacement of every pod that orrery evicts in order to re-create it (a
// plan's move of a bare pod, a change of requests), written to a ConfigMap beside the leader
// Lease before the eviction, so that a serve killed between the eviction and the re-creation
// loses no pod: the next leader replays the journal at start-up (src/k8s/README.md).
//
//   ConfigMap {namespace}/{name} (default: the Lease's namespace, "<lease-name>-journal"), data:
//     "<ns>.<name>": {"oldUid": "<uid of the evicted pod>", "pod": <the Pod the create POSTs>}
//
// One key per pod (a namespace holds no '.', so the first one splits the key). Every change is
// a read-modify-write guarded by the ConfigMap's resourceVersion: a 409 (someone changed it, or
// created it, in between) re-reads and tries again, a bounded number of times.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "k8s/client.h"
#include "k8s/objects.h"

namespace orrery::k8s {

struct JournalEntry {
  std::string ns, name;
  std::string old_uid;  // the pod being evicted
  JsonValue pod;        // its replacement, as POST pods takes it
  std::string pod_key() const { return ns + "/" + name; }
};

// "<ns>.<name>" (ConfigMap keys allow [-._a-zA-Z0-9]; namespaces and pod names stay within it).
std::string journal_key(const std::string& ns, const std::string& name);
std::string journal_value(const JournalEntry& e);
// Throws InputError naming the key and what was expected.
JournalEntry parse_journal_entry(const std::string& key, const std::string& value);

// What the pod of an entry's namespace/name looks like to the synced informers.
struct ObservedPod {
  std::string uid;
  bool terminating = false;  // metadata.deletionTimestamp is set
};

// A restarted leader's decision for one entry:
//   kCancel        the old pod is there and not terminating: the eviction never happened;
//                  drop the entry (the plan is cancelled with the process that made it)
//   kAwaitDeletion the old pod is terminating: create the replacement on its DELETED
//   kCreate        no pod of that name: evicted and not re-created; create the replacement
//   kDrop          a pod of that name with another uid: already re-created; drop the entry
enum class ReplayAction { kCancel, kAwaitDeletion, kCreate, kDrop };
std::string_view to_string(ReplayAction a);
ReplayAction decide_replay(const JournalEntry& entry, const std::optional<ObservedPod>& pod);

// The ConfigMap's reads and writes. Blocking: call from one worker thread at a time (ApiBackend
// gives the journal a thread of its own, so its writes happen in the order they were asked for).
class PlanJournal {
 public:
  PlanJournal(ApiClient& client, std::string ns, std::string name, int attempts = 5);

  // Adds (or replaces) the entry.
  Response record(const JournalEntry& e);
  // Removes the pod's entry (a 2xx also when there was none).
  Response erase(const std::string& ns, const std::string& name);
  // Every entry; a malformed one is logged and skipped (left in the ConfigMap for a human).
  // A missing ConfigMap is an empty journal.
  Response load(std::vector<JournalEntry>* out);

  const std::string& ns() const { return ns_; }
  const std::string& name() const { return name_; }

 private:
  // GET (or a fresh object on 404) → change(data) → PUT (or POST); a 409 starts again. `change`
  // returns false when nothing needs writing.
  Response mutate(const std::function<bool(JsonValue& data)>& change);
  std::string path(bool with_name) const;

  ApiClient& client_;
  std::string ns_, name_;
  int attempts_;
};

}  // namespace orrery::k8s
