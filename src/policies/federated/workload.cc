#include "policies/federated/workload.h"

#include <algorithm>
#include <charconv>
#include <unordered_map>

#include "core/error.h"
#include "io/k8s_objects.h"

namespace orrery::federated {

namespace {

constexpr size_t kExamples = 10;

std::string_view next_token(std::string_view line, size_t& pos) {
  while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t' || line[pos] == '\r')) ++pos;
  const size_t start = pos;
  while (pos < line.size() && line[pos] != ' ' && line[pos] != '\t' && line[pos] != '\r') ++pos;
  return line.substr(start, pos - start);
}

}  // namespace

std::vector<ConstraintOverride> parse_task_constraints(const std::string& text,
                                                       const std::string& source,
                                                       const sim::Trace& trace,
                                                       uint32_t constraint_ids) {
  std::vector<ConstraintOverride> out;
  std::string_view all = text;
  size_t pos = 0;
  int line_no = 0;
  while (pos < all.size()) {
    size_t end = all.find('\n', pos);
    if (end == std::string_view::npos) end = all.size();
    const std::string_view line = all.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    size_t p = 0;
    std::string_view tok = next_token(line, p);
    if (tok.empty() || tok[0] == '#') continue;
    auto fail = [&](const std::string& what) {
      throw InputError(source + ":" + std::to_string(line_no) + ": " + what);
    };
    auto integer = [&](std::string_view t, const char* what) {
      uint64_t v = 0;
      auto [q, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
      if (t.empty() || ec != std::errc() || q != t.data() + t.size()) {
        fail(std::string("expected ") + what + ", got \"" + std::string(t) + "\"");
      }
      return v;
    };
    ConstraintOverride o{};
    const uint64_t job = integer(tok, "a job index (0-based, trace order)");
    if (job >= trace.jobs.size()) {
      fail("job " + std::to_string(job) + " is not in the trace (it has " +
           std::to_string(trace.jobs.size()) + " jobs, indices 0.." +
           std::to_string(trace.jobs.size() - 1) + ")");
    }
    tok = next_token(line, p);
    if (tok.empty()) fail("expected: JOB TASK [CONSTRAINT_ID ...]");
    const uint64_t task = integer(tok, "a task index within the job (0-based)");
    if (task >= trace.jobs[job].num_tasks) {
      fail("task " + std::to_string(task) + " is not in job " + std::to_string(job) + " (it has " +
           std::to_string(trace.jobs[job].num_tasks) + " tasks)");
    }
    o.job = static_cast<uint32_t>(job);
    o.task = static_cast<uint32_t>(task);
    for (tok = next_token(line, p); !tok.empty(); tok = next_token(line, p)) {
      const uint64_t id = integer(tok, "a constraint id");
      if (id >= constraint_ids) {
        fail("unknown constraint id " + std::to_string(id) +
             " (the cluster configuration defines ids 0.." + std::to_string(constraint_ids - 1) +
             ")");
      }
      o.constraints |= ConstraintMask{1} << id;
    }
    out.push_back(o);
  }
  return out;
}

std::vector<ConstraintOverride> load_task_constraints(const std::string& path,
                                                      const sim::Trace& trace,
                                                      uint32_t constraint_ids) {
  return parse_task_constraints(read_text_file(path), path, trace, constraint_ids);
}

Workload make_workload(std::shared_ptr<const sim::Trace> trace, const TaskConstraintModel& model,
                       uint64_t seed, const ClusterConfig& dc,
                       std::span<const ConstraintOverride> overrides) {
  const uint32_t k = dc.groups.constraints();
  if (model.constraints() != k) {
    throw InputError(model.source() + ": the task model has " +
                     std::to_string(model.constraints()) + " constraint ids (0.." +
                     std::to_string(model.constraints() - 1) + ") but " + dc.source + " defines " +
                     std::to_string(k) +
                     " machine constraints (bit strings per partition); they must match");
  }
  Workload w;
  w.trace = std::move(trace);
  w.constraint_ids = k;
  const sim::Trace& t = *w.trace;
  const size_t n = t.task_count();
  w.task_constraints.resize(n);
  Rng rng = Rng::derive(seed, "federated/task-constraints");
  for (size_t i = 0; i < n; ++i) w.task_constraints[i] = model.draw(rng);
  for (const ConstraintOverride& o : overrides) {
    w.task_constraints[t.jobs[o.job].first_task + o.task] = o.constraints;
  }

  // Satisfiable = some worker's constraint set contains the task's (cached per distinct set).
  const std::vector<ConstraintMask> machines = dc.groups.distinct_masks();
  std::unordered_map<ConstraintMask, bool> cache;  // lookups only
  auto satisfiable = [&](ConstraintMask m) {
    auto [it, inserted] = cache.try_emplace(m, false);
    if (inserted) {
      it->second = std::any_of(machines.begin(), machines.end(),
                               [m](ConstraintMask w) { return (w & m) == m; });
    }
    return it->second;
  };
  w.runnable.assign(n, 1);
  w.job_ideal.assign(t.jobs.size(), 0);
  w.job_runnable.assign(t.jobs.size(), 0);
  for (uint32_t j = 0; j < t.jobs.size(); ++j) {
    const sim::TraceJob& job = t.jobs[j];
    bool affected = false;
    for (uint32_t i = 0; i < job.num_tasks; ++i) {
      const size_t task = job.first_task + i;
      if (satisfiable(w.task_constraints[task])) {
        ++w.job_runnable[j];
        w.job_ideal[j] = std::max(w.job_ideal[j], t.task_duration[task]);
        continue;
      }
      w.runnable[task] = 0;
      ++w.unsatisfiable_tasks;
      affected = true;
      if (w.examples.size() < kExamples)
        w.examples.push_back({j, i, job.line, w.task_constraints[task]});
    }
    w.unsatisfiable_jobs += affected;
    w.dropped_jobs += w.job_runnable[j] == 0;
  }
  w.arrival_order.resize(t.jobs.size());
  for (uint32_t j = 0; j < t.jobs.size(); ++j) w.arrival_order[j] = j;
  std::stable_sort(w.arrival_order.begin(), w.arrival_order.end(),
                   [&](uint32_t a, uint32_t b) { return t.jobs[a].arrival < t.jobs[b].arrival; });
  return w;
}

sim::Json Workload::unsatisfiable_json() const {
  sim::Json out;
  out["tasks"] = unsatisfiable_tasks;
  out["jobs_affected"] = unsatisfiable_jobs;
  out["jobs_dropped"] = dropped_jobs;
  sim::Json ex = sim::Json::array();
  for (const Dropped& d : examples) {
    sim::Json e;
    e["job"] = d.job;
    e["line"] = d.line;
    e["task"] = d.task;
    sim::Json ids = sim::Json::array();
    for_each_constraint(d.constraints, [&](uint32_t id) { ids.push_back(id); });
    e["constraints"] = ids;
    ex.push_back(std::move(e));
  }
  out["examples"] = std::move(ex);
  return out;
}

}  // namespace orrery::federated
