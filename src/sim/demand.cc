#include "sim/demand.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace orrery::sim {

void Demand::set(Time t, double load) {
  if (!steps_.empty() && t < steps_.back().first) {
    throw std::logic_error("Demand::set: steps out of order");
  }
  if (!steps_.empty() && steps_.back().first == t) {
    steps_.back().second = load;
  } else {
    steps_.emplace_back(t, load);
  }
}

double Demand::at(Time t) const {
  auto it = std::upper_bound(steps_.begin(), steps_.end(), t,
                             [](Time v, const std::pair<Time, double>& s) { return v < s.first; });
  if (it == steps_.begin()) return 0.0;
  return std::prev(it)->second;
}

namespace {

std::vector<double> per_service_cycles(const DemandCycleSpec& spec,
                                       const std::vector<Resources>& requests, Rng& rng,
                                       const std::vector<Demand*>& out) {
  const double k = static_cast<double>(requests.size());
  std::vector<double> fractions(static_cast<size_t>(spec.cycles), 0.0);
  for (size_t s = 0; s < requests.size(); ++s) {
    const bool sized = s < spec.sizes.size() && !spec.sizes[s].is_zero();
    const Resources& size = sized ? spec.sizes[s] : requests[s];
    double coef = 0;
    int n = 0;
    for (ResourceId r : {kCpu, kMemory}) {
      if (size[r] <= 0) continue;
      coef += static_cast<double>(spec.basis[r]) / k / static_cast<double>(size[r]);
      ++n;
    }
    coef = n > 0 ? coef / n : 0.0;
    for (int c = 0; c < spec.cycles; ++c) {
      const double pods = std::max(1.0, std::round(rng.normal(spec.mean * coef, spec.sd * coef)));
      out[s]->set(spec.start + spec.period * c, pods);
      if (coef > 0) fractions[static_cast<size_t>(c)] += pods / coef / k;
    }
    if (spec.stop) out[s]->set(spec.start + spec.period * spec.cycles, 0.0);
  }
  return fractions;
}

// `d` with its load multiplied by `depth` inside each of `episodes` (sorted, disjoint): one pass
// over the merged step and episode boundaries.
Demand with_stalls(const Demand& d, const std::vector<std::pair<Time, Time>>& episodes,
                   double depth) {
  std::vector<Time> times;
  for (const auto& [t, load] : d.steps()) times.push_back(t);
  for (const auto& [b, e] : episodes) times.insert(times.end(), {b, e});
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  Demand out;
  size_t ep = 0;
  for (Time t : times) {
    while (ep < episodes.size() && episodes[ep].second <= t) ++ep;  // episodes ended by t
    const bool stalled = ep < episodes.size() && episodes[ep].first <= t;
    out.set(t, d.at(t) * (stalled ? depth : 1.0));
  }
  return out;
}

std::vector<double> unstalled_cycles(const DemandCycleSpec& spec,
                                     const std::vector<Resources>& requests, Rng& rng,
                                     const std::vector<Demand*>& out) {
  if (spec.draw == DemandCycleSpec::Draw::kPerService)
    return per_service_cycles(spec, requests, rng, out);
  std::vector<double> fractions;
  const double k = static_cast<double>(requests.size());
  const bool min_count = spec.count == DemandCycleSpec::Count::kMin;
  for (int c = 0; c < spec.cycles; ++c) {
    const double f = std::max(0.0, rng.normal(spec.mean, spec.sd));
    fractions.push_back(f);
    const Time t = spec.start + spec.period * c;
    for (size_t s = 0; s < requests.size(); ++s) {
      double load = -1;
      for (ResourceId r : {kCpu, kMemory}) {
        if (requests[s][r] <= 0) continue;
        const double share = f * static_cast<double>(spec.basis[r]) / k;
        const double pods = share / static_cast<double>(requests[s][r]);
        load = load < 0 ? pods : min_count ? std::min(load, pods) : std::max(load, pods);
      }
      load = std::max(load, 0.0);
      if (spec.round) load = std::round(load);
      out[s]->set(t, load);
    }
  }
  if (spec.stop)
    for (Demand* d : out) d->set(spec.start + spec.period * spec.cycles, 0.0);
  return fractions;
}

}  // namespace

std::vector<std::pair<Time, Time>> draw_stalls(const DemandCycleSpec& spec, Rng& rng) {
  std::vector<std::pair<Time, Time>> episodes;
  const DemandCycleSpec::Stalls& st = spec.stalls;
  if (st.every <= 0) return episodes;
  const Time end = spec.start + spec.period * spec.cycles;
  double t = static_cast<double>(spec.start + st.after);
  while (true) {
    t += -std::log1p(-rng.uniform()) * static_cast<double>(st.every);  // exponential gap
    if (t >= static_cast<double>(end)) break;
    const Time begin = static_cast<Time>(t);
    const Time length =
        st.min_length +
        static_cast<Time>(rng.uniform() * static_cast<double>(st.max_length - st.min_length));
    const Time stop = std::min(begin + length, end);
    if (!episodes.empty() && begin <= episodes.back().second) {
      episodes.back().second = std::max(episodes.back().second, stop);  // overlapping: merge
    } else {
      episodes.emplace_back(begin, stop);
    }
    t = static_cast<double>(stop);
  }
  return episodes;
}

std::vector<double> generate_demand_cycles(const DemandCycleSpec& spec,
                                           const std::vector<Resources>& requests, Rng& rng,
                                           std::vector<Demand*> out) {
  std::vector<double> fractions = unstalled_cycles(spec, requests, rng, out);
  const auto episodes = draw_stalls(spec, rng);
  if (!episodes.empty())
    for (Demand* d : out) *d = with_stalls(*d, episodes, spec.stalls.depth);
  return fractions;
}

}  // namespace orrery::sim
