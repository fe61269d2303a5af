// The ApiBackend's options and the outcome reports of its actions, shared by its parts (the
// informer cache, the action executor) and its users.
#pragma once

#include <string>

#include "k8s/informer.h"

namespace orrery::k8s {

struct ApiBackendOptions {
  // Terminal pods hold nothing; the watch drops them (DELETED) when they finish.
  std::string pod_field_selector = "status.phase!=Succeeded,status.phase!=Failed";
  Backoff backoff;
  int eviction_attempts = 5;      // a 429 is retried this many times in all
  int eviction_backoff_ms = 500;  // doubling, jittered
  int create_attempts = 8;        // a 5xx, 429 or transport error is retried this many times in all
  int create_backoff_ms = 200;    // doubling, jittered
  int workers = 4;
  std::string component = "orrery";  // Events' source
  std::string instance;              // Events' reportingInstance (the replica's identity)
  // The plan journal's ConfigMap (empty name: no journal; re-creations are then not crash-safe).
  std::string journal_namespace = "kube-system";
  std::string journal_name;
};

// What happened to an action, for metrics and logs (called on the loop thread).
struct ActionOutcome {
  std::string action;   // bind, evict, create, patch, event
  std::string outcome;  // ok, conflict, throttled, error, refused
};

}  // namespace orrery::k8s
