#include "policies/optpack/phase.h"

namespace orrery::optpack {

int64_t PhaseProblem::cost(const Assignment& a) const {
  return phase == Phase::kPlace ? -placed_upto(*m, a, tier) : disruption_upto(*m, a, tier);
}

bool PhaseProblem::satisfies(const Assignment& a, std::string* why) const {
  if (static_cast<int>(a.size()) != m->pods()) {
    if (why) *why = "wrong assignment size";
    return false;
  }
  for (int p = 0; p < m->pods(); ++p)
    if (!in_scope(p) && a[p] != kUnplaced) {
      if (why) *why = "pod " + m->pod_names[p] + " is outside the tier's scope";
      return false;
    }
  if (!respects_capacity(*m, a, why)) return false;
  for (int t = 0; t < m->tiers() && t < static_cast<int>(fix.min_placed.size()); ++t) {
    if (fix.min_placed[t] >= 0 && placed_upto(*m, a, t) < fix.min_placed[t]) {
      if (why) *why = "tier " + std::to_string(t) + " places fewer pods than fixed";
      return false;
    }
    if (fix.max_disruption[t] >= 0 && disruption_upto(*m, a, t) > fix.max_disruption[t]) {
      if (why) *why = "tier " + std::to_string(t) + " disrupts more than fixed";
      return false;
    }
  }
  return true;
}

}  // namespace orrery::optpack
