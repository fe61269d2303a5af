// "Plans": the cross-node plans a policy executed (summary.json scheduler.<component>.plan_history,
// written by the priority-optimal packer), one row per plan with its outcome and its steps.
#include <string>

#include "report/run_sections.h"

namespace orrery::report {
namespace {

// Rows shown per run; the rest are counted in a note (all of them stay in summary.json).
constexpr size_t kMaxPlansPerRun = 40;
// Steps spelled out per plan before "… and N more".
constexpr size_t kMaxStepsShown = 8;

std::string short_pod(const std::string& pod) {
  const size_t slash = pod.find('/');
  return slash == std::string::npos ? pod : pod.substr(slash + 1);
}

// "evict a-0 from node-0, create a-0 on node-2, bind b-0 to node-0, … and 3 more"
std::string describe_steps(const nlohmann::ordered_json& steps) {
  std::string out;
  size_t shown = 0;
  for (const auto& st : steps) {
    if (shown == kMaxStepsShown) {
      out += ", … and " + std::to_string(steps.size() - shown) + " more";
      break;
    }
    const std::string action = st.value("action", "");
    const char* joiner = action == "evict" ? " from " : action == "bind" ? " to " : " on ";
    out += (shown ? ", " : "") + action + " " + short_pod(st.value("pod", "")) + joiner +
           st.value("node", "");
    ++shown;
  }
  return out;
}

}  // namespace

void plans_section(Document& doc, const std::vector<RunData>& runs) {
  Table t;
  t.columns = {"run", "policy part", "plan", "at (s)", "status", "steps", "what it did"};
  size_t hidden = 0;
  for (const RunData& r : runs) {
    const auto sched = r.summary.is_object() ? r.summary.find("scheduler") : r.summary.end();
    if (sched == r.summary.end() || !sched->is_object()) continue;
    for (const auto& [part, value] : sched->items()) {
      if (!value.is_object() || !value.contains("plan_history")) continue;
      const auto& history = value["plan_history"];
      if (!history.is_array()) continue;
      size_t rows = 0;
      for (const auto& plan : history) {
        if (rows++ == kMaxPlansPerRun) {
          hidden += history.size() - kMaxPlansPerRun;
          break;
        }
        const auto& steps = plan.contains("steps") ? plan["steps"] : nlohmann::ordered_json();
        std::string status = plan.value("status", "");
        const std::string reason = plan.value("reason", "");
        if (!reason.empty()) status += ": " + reason;
        t.add_row({r.label, part, plan.value("plan", ""),
                   Cell(plan.value("at_s", 0.0), Format::kNumber), status,
                   Cell(steps.is_array() ? steps.size() : size_t{0}),
                   steps.is_array() ? describe_steps(steps) : std::string()});
      }
    }
  }
  if (t.rows.empty()) return;
  doc.section("Plans");
  doc.paragraph(
      "Cross-node plans the policies executed: evictions, re-creations and binds applied as one "
      "plan, in order, and whether the plan completed or was cancelled (and why).");
  doc.table(t);
  if (hidden > 0)
    doc.paragraph(std::to_string(hidden) +
                  " more plans are not shown; summary.json lists every plan under "
                  "scheduler.<part>.plan_history.");
}

}  // namespace orrery::report
