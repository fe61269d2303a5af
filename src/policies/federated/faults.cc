#include "policies/federated/faults.h"

#include <algorithm>
#include <set>

#include "core/error.h"
#include "io/files.h"
#include "io/k8s_objects.h"
#include "io/yaml_util.h"
#include "util/suggest.h"

namespace orrery::federated {

namespace {

using yaml::Ctx;

using yaml::check_keys;

sim::Time required_duration(const Ctx& c, const std::string& key, bool positive) {
  if (!c.has(key)) c.fail("needs " + key + " (a duration)");
  const sim::Time t = parse_duration(c.child(key));
  if (positive && t <= 0) c.child(key).fail("expected a duration > 0");
  return t;
}

class Names {
 public:
  explicit Names(std::vector<std::string> names) : names_(std::move(names)) {}

  // A component name; with `kinds`, also a kind ("gm", "lm", "master", "distributor") standing
  // for every component of that kind.
  std::vector<uint32_t> resolve(const Ctx& c, bool kinds) const {
    const std::string s = c.str();
    std::vector<uint32_t> out;
    for (uint32_t i = 0; i < names_.size(); ++i) {
      if (names_[i] == s) return {i};
      if (kinds && kind_of(names_[i]) == s) out.push_back(i);
    }
    if (!out.empty()) return out;
    std::vector<std::string> known = names_;
    std::string list = names_.empty() ? "" : names_.front() + " .. " + names_.back();
    if (kinds) {
      for (const std::string& n : names_)
        if (std::find(known.begin(), known.end(), kind_of(n)) == known.end())
          known.push_back(kind_of(n));
    }
    c.fail("unknown component \"" + s + "\"" + did_you_mean(s, known) +
           "; this configuration has " + list_of(kinds));
  }
  // One name or a list of names.
  std::vector<uint32_t> side(const Ctx& c) const {
    if (c.node.IsScalar()) return resolve(c, false);
    c.expect_seq();
    if (c.size() == 0) c.fail("expected a component name or a non-empty list of them");
    std::vector<uint32_t> out;
    for (size_t i = 0; i < c.size(); ++i) {
      for (uint32_t id : resolve(c.item(i), false)) out.push_back(id);
    }
    return out;
  }

 private:
  static std::string kind_of(const std::string& name) {
    return name.substr(0, name.find_first_of("0123456789"));
  }
  std::string list_of(bool kinds) const {
    std::string out;
    std::string kind;
    uint32_t first = 0;
    auto flush = [&](uint32_t end) {
      if (kind.empty()) return;
      out += (out.empty() ? "" : ", ") + kind + std::to_string(0) +
             (end - first > 1 ? ".." + kind + std::to_string(end - first - 1) : "");
    };
    for (uint32_t i = 0; i < names_.size(); ++i) {
      if (kind_of(names_[i]) != kind) {
        flush(i);
        kind = kind_of(names_[i]);
        first = i;
      }
    }
    flush(static_cast<uint32_t>(names_.size()));
    if (kinds) out += " (or a kind: every component of it)";
    return out;
  }
  std::vector<std::string> names_;
};

void parse_network(const Ctx& n, FaultPlan* p) {
  check_keys(n, {"drop", "delay", "retransmit"});
  if (n.has("drop")) {
    p->drop = n.child("drop").f64();
    if (!(p->drop >= 0 && p->drop <= 0.9)) {
      n.child("drop").fail(
          "expected a probability in [0, 0.9] (each transmission is lost with it)");
    }
  }
  if (n.has("delay")) p->delay = parse_duration_dist(n.child("delay"));
  if (n.has("retransmit")) {
    const Ctx r = n.child("retransmit");
    check_keys(r, {"initial", "max"});
    if (r.has("initial")) p->rto_initial = required_duration(r, "initial", true);
    if (r.has("max")) p->rto_max = required_duration(r, "max", true);
    if (p->rto_max < p->rto_initial) r.child("max").fail("expected a duration >= initial");
  }
}

// The `partitions` list of the plan at `root`, into p->partitions.
void parse_partitions(const Ctx& root, const Names& names, FaultPlan* p) {
  const Ctx parts = root.child("partitions");
  if (parts.defined()) {
    parts.expect_seq();
    for (size_t i = 0; i < parts.size(); ++i) {
      const Ctx c = parts.item(i);
      check_keys(c, {"from", "to", "between"});
      FaultPlan::Partition x;
      x.from = required_duration(c, "from", false);
      x.to = required_duration(c, "to", false);
      if (x.to <= x.from) c.child("to").fail("expected a time after from");
      if (!c.has("between")) c.fail("needs between: [SIDE, SIDE] (a name or a list of names each)");
      const Ctx b = c.child("between");
      b.expect_seq();
      if (b.size() != 2) b.fail("expected two sides, e.g. [gm0, [lm1, lm2]]");
      x.a = names.side(b.item(0));
      x.b = names.side(b.item(1));
      for (uint32_t id : x.a) {
        if (std::find(x.b.begin(), x.b.end(), id) != x.b.end())
          b.fail("component " + p->names[id] + " is on both sides");
      }
      p->partitions.push_back(std::move(x));
    }
  }
}

// The `crashes` list of the plan at `root`, into p->crashes.
void parse_crashes(const Ctx& root, const Names& names, FaultPlan* p) {
  const Ctx crashes = root.child("crashes");
  if (crashes.defined()) {
    crashes.expect_seq();
    for (size_t i = 0; i < crashes.size(); ++i) {
      const Ctx c = crashes.item(i);
      check_keys(c, {"component", "at", "restart"});
      if (!c.has("component")) c.fail("needs component (e.g. gm0, lm1, master3, distributor0)");
      FaultPlan::Crash x;
      x.component = names.resolve(c.child("component"), false).front();
      x.at = required_duration(c, "at", false);
      x.restart = required_duration(c, "restart", false);
      if (x.restart <= x.at) c.child("restart").fail("expected a time after at");
      for (const FaultPlan::Crash& o : p->crashes) {
        if (o.component == x.component && x.at < o.restart && o.at < x.restart) {
          c.fail(p->names[x.component] + " is already down then (another crash overlaps)");
        }
      }
      p->crashes.push_back(x);
    }
  }
}

// The `random_crashes` list of the plan at `root`, into p->random_crashes.
void parse_random_crashes(const Ctx& root, const Names& names, FaultPlan* p) {
  const Ctx random = root.child("random_crashes");
  if (random.defined()) {
    random.expect_seq();
    for (size_t i = 0; i < random.size(); ++i) {
      const Ctx c = random.item(i);
      check_keys(c, {"components", "mtbf", "mttr", "until"});
      if (!c.has("components")) c.fail("needs components (names or kinds: gm, lm, ...)");
      FaultPlan::RandomCrashes x;
      const Ctx list = c.child("components");
      list.expect_seq();
      std::set<uint32_t> seen;
      for (size_t k = 0; k < list.size(); ++k)
        for (uint32_t id : names.resolve(list.item(k), true))
          if (seen.insert(id).second) x.components.push_back(id);
      x.mtbf = required_duration(c, "mtbf", true);
      x.mttr = required_duration(c, "mttr", true);
      if (c.has("until")) x.until = required_duration(c, "until", true);
      p->random_crashes.push_back(std::move(x));
    }
  }
}

}  // namespace

std::vector<std::string> component_names(const ClusterConfig& c) {
  std::vector<std::string> out;
  if (c.arch == Arch::kMegha) {
    for (uint32_t g = 0; g < c.num_gms; ++g) out.push_back("gm" + std::to_string(g));
    for (uint32_t l = 0; l < c.num_lms; ++l) out.push_back("lm" + std::to_string(l));
  } else {
    const uint32_t d = std::max<uint32_t>(1, c.num_distributors);
    for (uint32_t i = 0; i < d; ++i) out.push_back("distributor" + std::to_string(i));
    for (uint32_t m = 0; m < c.groups.groups(); ++m) out.push_back("master" + std::to_string(m));
  }
  return out;
}

FaultPlan parse_fault_plan(const std::string& text, const std::string& source,
                           const ClusterConfig& config) {
  Ctx root{source, yaml::parse_document(text, source), "", 1};
  yaml::check_unique_keys(root);
  if (!root.defined())
    root.fail("expected a mapping of faults (network, partitions, crashes, ...)");
  check_keys(root, {"seed", "network", "partitions", "crashes", "random_crashes"});
  FaultPlan p;
  p.names = component_names(config);
  const Names names(p.names);
  if (root.has("seed")) {
    const int64_t s = root.child("seed").i64();
    if (s < 0) root.child("seed").fail("expected a non-negative integer");
    p.seed = static_cast<uint64_t>(s);
  }
  if (root.has("network")) parse_network(root.child("network"), &p);

  parse_partitions(root, names, &p);
  parse_crashes(root, names, &p);
  parse_random_crashes(root, names, &p);
  return p;
}

FaultPlan load_fault_plan(const std::string& path, const ClusterConfig& c) {
  return parse_fault_plan(read_text_file(path), path, c);
}

Faults::Faults(const FaultPlan& plan, uint64_t run_seed, sim::EventLoop& loop, uint32_t clusters,
               FaultListener& listener, std::function<bool()> finished)
    : plan_(plan),
      seed_(plan.seed.value_or(run_seed)),
      loop_(loop),
      listener_(listener),
      finished_(std::move(finished)),
      named_(static_cast<uint32_t>(plan.names.size())),
      net_rng_(Rng::derive(seed_, "federated/faults/network")) {
  (void)clusters;
  down_until_.assign(named_, 0);
  for (size_t r = 0; r < plan_.random_crashes.size(); ++r)
    for (uint32_t c = 0; c < named_; ++c)
      crash_rng_.push_back(
          Rng::derive(seed_, "federated/faults/crash/" + std::to_string(r) + "/" + plan_.names[c]));
}

void Faults::start() {
  for (size_t i = 0; i < plan_.crashes.size(); ++i) loop_.at(plan_.crashes[i].at, this, kCrash, i);
  for (size_t r = 0; r < plan_.random_crashes.size(); ++r) {
    const FaultPlan::RandomCrashes& rc = plan_.random_crashes[r];
    for (uint32_t c : rc.components) {
      Rng& rng = crash_rng_[r * named_ + c];
      const sim::Time t = Dist::exponential(static_cast<double>(rc.mtbf)).sample_time(rng);
      if (t < rc.until) loop_.at(t, this, kRandomCrash, r, c);
    }
  }
}

sim::Time Faults::transit(uint32_t from, uint32_t to, sim::Time base) {
  sim::Time t = base;
  if (!plan_.delay.is_zero()) t += plan_.delay.sample_time(net_rng_);
  if (plan_.drop > 0) {
    sim::Time rto = plan_.rto_initial;
    while (net_rng_.uniform() < plan_.drop) {  // this transmission is lost: wait, send again
      t += rto;
      rto = std::min(plan_.rto_max, 2 * rto);
      ++retransmissions_;
    }
  }
  const sim::Time arrival = loop_.now() + t;
  sim::Time& last = last_arrival_[(uint64_t{from} << 32) | to];
  last = std::max(last, arrival);  // in order: not before the link's previous message
  return last - loop_.now();
}

sim::Time Faults::held_until(uint32_t from, uint32_t to) {
  const sim::Time now = loop_.now();
  sim::Time until = -1;
  if (to < named_ && down(to)) until = down_until_[to];
  for (const FaultPlan::Partition& p : plan_.partitions) {
    if (now < p.from || now >= p.to) continue;
    auto in = [](const std::vector<uint32_t>& side, uint32_t c) {
      return std::find(side.begin(), side.end(), c) != side.end();
    };
    if ((in(p.a, from) && in(p.b, to)) || (in(p.b, from) && in(p.a, to)))
      until = std::max(until, p.to);
  }
  if (until >= 0) ++held_;
  return until;
}

void Faults::crash(uint32_t component, sim::Time restart) {
  if (down(component)) {  // already down: stays down until the later restart
    down_until_[component] = std::max(down_until_[component], restart);
    loop_.at(restart, this, kRestart, component);
    return;
  }
  ++crashes_;
  down_until_[component] = restart;
  listener_.on_crash(component);
  loop_.at(restart, this, kRestart, component);
}

void Faults::handle(const sim::Event& e) {
  switch (e.kind) {
    case kCrash: {
      const FaultPlan::Crash& c = plan_.crashes[e.a];
      if (!finished_()) crash(c.component, c.restart);
      return;
    }
    case kRandomCrash: {
      if (finished_()) return;
      const FaultPlan::RandomCrashes& rc = plan_.random_crashes[e.a];
      const auto c = static_cast<uint32_t>(e.b);
      Rng& rng = crash_rng_[e.a * named_ + c];
      const sim::Time down =
          std::max<sim::Time>(1, Dist::exponential(static_cast<double>(rc.mttr)).sample_time(rng));
      const sim::Time restart = loop_.now() + down;
      crash(c, restart);
      const sim::Time next =
          restart + Dist::exponential(static_cast<double>(rc.mtbf)).sample_time(rng);
      if (next < rc.until) loop_.at(next, this, kRandomCrash, e.a, e.b);
      return;
    }
    case kRestart: {
      const auto c = static_cast<uint32_t>(e.a);
      if (!down(c) || loop_.now() < down_until_[c]) return;  // a later restart is due
      down_until_[c] = 0;
      ++restarts_;
      listener_.on_restart(c);
      return;
    }
  }
}

Json Faults::summary() const {
  Json out;
  out["seed"] = seed_;
  out["drop"] = plan_.drop;
  out["extra_delay"] = plan_.delay.to_string();
  out["retransmissions"] = retransmissions_;
  out["held_messages"] = held_;
  out["crashes"] = crashes_;
  out["restarts"] = restarts_;
  out["partitions"] = plan_.partitions.size();
  return out;
}

}  // namespace orrery::federated
