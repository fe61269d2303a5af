#include "policies/federated/trace_runner.h"

#include <map>
#include <memory>
#include <set>
#include <utility>

#include "core/error.h"
#include "policies/federated/architectures.h"
#include "policies/federated/run.h"
#include "policies/federated/worker_scenario.h"
#include "sim/simulation.h"
#include "util/suggest.h"

namespace orrery::federated {

namespace {

std::string kind_name(Arch a) {
  return a == Arch::kMegha ? "Megha" : "PigeonC";
}

void check_names(const std::vector<std::string>& profiles, const fw::PolicyRegistry& registry) {
  if (profiles.empty()) throw InputError("--profiles: expected at least one name");
  std::set<std::string> seen;
  for (const std::string& p : profiles) {
    if (!registry.has(p) && !find_architecture(p)) {
      throw InputError("--profiles: unknown profile \"" + p + "\"" +
                       did_you_mean(p, names_with_architectures(registry)) + "; known names:\n" +
                       name_listing(registry, true));
    }
    if (!seen.insert(p).second) throw InputError("--profiles: \"" + p + "\" is given twice");
  }
}

bool same_workers(const ClusterConfig& a, const ClusterConfig& b) {
  if (a.workers() != b.workers()) return false;
  for (size_t w = 0; w < a.workers(); ++w)
    if (a.groups.worker_mask(w) != b.groups.worker_mask(w)) return false;
  return true;
}

// The workload a run of `c` draws with `seed`, built once so a bad task model (or one that does
// not match the configuration) is reported before any run starts.
void check_task_model(const std::string& trace, const ClusterConfig& c, uint64_t seed) {
  const TaskConstraintModel model = load_task_model(default_task_model(c.source));
  make_workload(std::make_shared<const sim::Trace>(sim::read_trace(trace)), model, seed, c);
}

}  // namespace

TraceRunner::TraceRunner(TraceSetup setup, std::vector<std::string> profiles,
                         fw::PolicyRegistry registry)
    : setup_(std::move(setup)), profiles_(std::move(profiles)), registry_(std::move(registry)) {
  check_names(profiles_, registry_);
  if (setup_.trace.empty()) throw InputError("--trace: expected a .tr file");
  sim::read_trace(setup_.trace);  // reports a bad trace before the configurations
  load_configs();
  std::set<Arch> checked;
  for (const std::string& p : profiles_) {
    const Architecture* a = find_architecture(p);
    if (!a) continue;
    if (setup_.duration_us > 0) {
      throw InputError("--duration: \"" + p +
                       "\" runs until every job of the trace is done; drop --duration to compare "
                       "it");
    }
    const std::string& path = a->arch == Arch::kMegha ? megha_config_ : pigeon_config_;
    if (path.empty()) {
      const Arch other = a->arch == Arch::kMegha ? Arch::kPigeonC : Arch::kMegha;
      throw InputError("--profiles: \"" + p + "\" needs a " + config_kind(a->arch) +
                       " cluster configuration, but --cluster-config gave only " +
                       setup_.cluster_configs.front() + ", a " + kind_name(other) +
                       " one (give one of each: --cluster-config A_C.json,B_C.json)");
    }
    if (checked.insert(a->arch).second)
      check_task_model(setup_.trace, load_cluster_config(path), setup_.seed.value_or(1));
  }
}

void TraceRunner::load_configs() {
  if (setup_.cluster_configs.empty()) {
    throw InputError(
        "--trace needs --cluster-config FILE_C.json (a Megha or PigeonC configuration: its "
        "workers are the cluster)");
  }
  std::optional<ClusterConfig> first;
  for (const std::string& path : setup_.cluster_configs) {
    ClusterConfig c = load_cluster_config(path);
    std::string& slot = c.arch == Arch::kMegha ? megha_config_ : pigeon_config_;
    if (!slot.empty()) {
      throw InputError("--cluster-config: " + slot + " and " + path + " are both " +
                       kind_name(c.arch) + " configurations; give at most one of each kind");
    }
    slot = path;
    if (!first) {
      first = std::move(c);
    } else if (!same_workers(*first, c)) {
      throw InputError("--cluster-config: " + first->source + " (" +
                       std::to_string(first->workers()) + " workers) and " + path + " (" +
                       std::to_string(c.workers()) +
                       " workers) describe different workers or machine constraints; the runs "
                       "of one comparison share one data centre");
    }
  }
}

TraceRun TraceRunner::run(size_t i, const std::string& dir) const {
  const std::string& name = profiles_.at(i);
  return find_architecture(name) ? run_architecture(name, dir) : run_policy(name, dir);
}

TraceRun TraceRunner::run_policy(const std::string& name, const std::string& dir) const {
  const ClusterConfig c = load_cluster_config(setup_.cluster_configs.front());
  const sim::Scenario sc = worker_scenario(setup_.trace, c);
  sim::RunOptions opt;
  opt.policy = name;
  opt.seed = setup_.seed;
  opt.duration = setup_.duration_us;
  opt.wall_clock = setup_.wall_clock;
  sim::Simulation simulation(sc, registry_, opt);
  simulation.run();
  simulation.write_outputs(dir);
  return {simulation.summary(), simulation.warnings()};
}

TraceRun TraceRunner::run_architecture(const std::string& name, const std::string& dir) const {
  const Architecture& a = *find_architecture(name);
  SimRequest req;
  req.arch = a.arch;
  req.trace = setup_.trace;
  req.cluster_config = a.arch == Arch::kMegha ? megha_config_ : pigeon_config_;
  req.options.seed = setup_.seed.value_or(1);
  req.options.wall_clock = setup_.wall_clock;
  apply(a, &req.options);
  RunOutput r = run_request(req);
  r.summary["profile"] = name;
  write_run(r, dir);
  TraceRun out{std::move(r.summary), {}};
  const size_t dropped = out.summary["unsatisfiable"]["tasks"].get<size_t>();
  if (dropped > 0) {
    out.warnings.push_back(
        name + ": " + std::to_string(dropped) + " task(s) in " +
        std::to_string(out.summary["unsatisfiable"]["jobs_affected"].get<size_t>()) +
        " job(s) need constraints no worker has; dropped (see \"unsatisfiable\" in " + dir +
        "/summary.json)");
  }
  return out;
}

}  // namespace orrery::federated
