// Queueing hints shared by the default plugins (fw::Plugin::queueing_hint): which events may make
// a pod a plugin rejected schedulable.
#pragma once

#include "framework/queueing_hint.h"

namespace orrery::plugins {

// Plugins whose verdict depends on the node alone (its labels, taints, name, flags, constraints):
// only a new or changed node may help. A removed node cannot make another one pass.
inline fw::QueueingHint node_only_hint(const fw::QueueEvent& e) {
  return e.kind == fw::QueueEvent::kNodeAdded || e.kind == fw::QueueEvent::kNodeUpdated ||
                 e.kind == fw::QueueEvent::kAll
             ? fw::QueueingHint::kQueue
             : fw::QueueingHint::kSkip;
}

// A cleared nomination frees what the scheduler set aside for the preemptor, which pods of
// priority <= the preemptor's saw (Scheduler::assume_nominated).
inline bool nomination_may_help(const fw::QueueEvent& e, const fw::PodClassKey& waiting) {
  return e.kind == fw::QueueEvent::kNominationCleared && e.priority >= waiting.spec->priority;
}

inline fw::QueueingHint queue_if(bool b) {
  return b ? fw::QueueingHint::kQueue : fw::QueueingHint::kSkip;
}

}  // namespace orrery::plugins
