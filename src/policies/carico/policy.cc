#include "policies/carico/policy.h"

#include <memory>

#include "core/error.h"
#include "framework/telemetry.h"
#include "io/distribution_reader.h"
#include "net/transport_security.h"
#include "policies/carico/plugin.h"
#include "policies/carico/rpc/aggregator_feed.h"
#include "policies/carico/rpc/processes.h"
#include "policies/carico/sim_agents.h"
#include "policies/kube/policies.h"

namespace orrery::carico {
namespace {

struct CaricoArgs {
  SimAgentOptions sim;
  Time stale_after = 3 * kSecond;
  std::string aggregator;
  Time poll_interval = 500 * kMs;
  rpc::ClientTls tls;     // ca_file, cert_file, key_file
  bool insecure = false;  // plaintext to a non-loopback aggregator
};

CaricoArgs parse_args(const yaml::Ctx& c) {
  CaricoArgs a;
  if (!c.defined()) return a;
  c.expect_map();
  static const char* const kKeys[] = {"hz",
                                      "batch",
                                      "rank",
                                      "forget",
                                      "global_weight",
                                      "churn_window",
                                      "report_delay",
                                      "stale_after",
                                      "prior_pods",
                                      "idle_cpu",
                                      "idle_mem",
                                      "noise",
                                      "aggregator",
                                      "poll_interval",
                                      "ca_file",
                                      "cert_file",
                                      "key_file",
                                      "insecure",
                                      "aggregator_outages"};
  for (const std::string& k : c.keys()) {
    bool known = false;
    for (const char* kk : kKeys) known = known || k == kk;
    if (!known)
      c.child(k).fail(
          "unknown field (expected hz, batch, rank, forget, global_weight, "
          "churn_window, report_delay, stale_after, prior_pods, idle_cpu, idle_mem, "
          "noise, aggregator, poll_interval, ca_file, cert_file, key_file, "
          "insecure, aggregator_outages)");
  }
  AgentOptions& ag = a.sim.agent;
  auto num = [&](const char* k, double def, double lo, double hi) {
    const double v = c.f64_or(k, def);
    if (!(v >= lo && v <= hi))
      c.child(k).fail("expected a number in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                      "]");
    return v;
  };
  ag.hz = num("hz", ag.hz, 0.1, 1000);
  ag.batch = static_cast<int>(num("batch", ag.batch, 1, 1000));
  ag.rank = static_cast<int>(num("rank", ag.rank, 1, kDims));
  ag.forget = num("forget", ag.forget, 0, 0.999);
  ag.global_weight = num("global_weight", ag.global_weight, 0, 1);
  ag.pod.prior_pods = num("prior_pods", ag.pod.prior_pods, 0.1, 1000);
  a.sim.idle_cpu = num("idle_cpu", a.sim.idle_cpu, 0, 1);
  a.sim.idle_mem = num("idle_mem", a.sim.idle_mem, 0, 1);
  a.sim.noise = num("noise", a.sim.noise, 0, 1);
  if (c.has("churn_window"))
    ag.churn_window_s = to_seconds(parse_duration(c.child("churn_window")));
  if (c.has("report_delay")) a.sim.report_delay = parse_duration(c.child("report_delay"));
  if (c.has("stale_after")) a.stale_after = parse_duration(c.child("stale_after"));
  if (c.has("poll_interval")) a.poll_interval = parse_duration(c.child("poll_interval"));
  if (c.has("aggregator_outages")) {
    const yaml::Ctx list = c.child("aggregator_outages");
    list.expect_seq();
    for (size_t i = 0; i < list.size(); ++i) {
      const yaml::Ctx o = list.item(i);
      o.expect_map();
      if (!o.has("from") || !o.has("to")) o.fail("expected {from: DURATION, to: DURATION}");
      AggregatorOutage out{parse_duration(o.child("from")), parse_duration(o.child("to"))};
      if (out.to <= out.from) o.child("to").fail("expected a time after from");
      a.sim.aggregator_outages.push_back(out);
    }
  }
  a.aggregator = c.str_or("aggregator", "");
  a.tls.ca_file = c.str_or("ca_file", "");
  a.tls.cert_file = c.str_or("cert_file", "");
  a.tls.key_file = c.str_or("key_file", "");
  a.insecure = c.bool_or("insecure", false);
  return a;
}

std::string config_yaml(Time stale_after) {
  return "apiVersion: kubescheduler.config.k8s.io/v1\n"
         "kind: KubeSchedulerConfiguration\n"
         // Pod-Capacity changes every report (1 s): a pod CARICO turned away is worth retrying
         // a second later, not after upstream's back-off of up to 10 s.
         "podMaxBackoffSeconds: 1\n"
         "profiles:\n"
         "- schedulerName: default-scheduler\n"
         "  plugins:\n"
         "    filter: {enabled: [{name: CaricoCapacity}]}\n"
         "    preScore: {disabled: [{name: '*'}]}\n"
         "    score: {disabled: [{name: '*'}], enabled: [{name: CaricoCapacity, weight: 1}]}\n"
         "    reserve: {enabled: [{name: CaricoCapacity}]}\n"
         "  pluginConfig:\n"
         "  - name: CaricoCapacity\n"
         "    args: {staleAfter: " +
         std::to_string(to_seconds(stale_after)) + "}\n";
}

// The scheduler plus the capacity feed the policy brought (if any), withdrawn at the end.
class CaricoPolicy : public fw::Component {
 public:
  CaricoPolicy(fw::Services& services, std::unique_ptr<CapacityFeed> feed)
      : services_(services), feed_(std::move(feed)) {}
  ~CaricoPolicy() override {
    driver_.reset();
    if (feed_) services_.withdraw<CapacityFeed>();
  }
  void set_driver(std::unique_ptr<fw::Component> d) { driver_ = std::move(d); }
  void start() override {
    if (auto* s = dynamic_cast<SimulatedAgents*>(feed_.get())) s->start();
    if (auto* a = dynamic_cast<rpc::AggregatorFeed*>(feed_.get())) a->start();
    driver_->start();
  }
  void finish(Json* summary) override {
    driver_->finish(summary);
    if (auto* s = dynamic_cast<SimulatedAgents*>(feed_.get())) {
      (*summary)["carico_merges"] = s->aggregator().merges();
      if (s->aggregator_restarts() + s->lost_reports() > 0) {
        (*summary)["carico_aggregator_restarts"] = s->aggregator_restarts();
        (*summary)["carico_reports_lost"] = s->lost_reports();
      }
    }
  }

 private:
  fw::Services& services_;
  std::unique_ptr<CapacityFeed> feed_;
  std::unique_ptr<fw::Component> driver_;
};

std::unique_ptr<fw::Component> make_policy(fw::PolicyContext& ctx) {
  yaml::Ctx fw_args = ctx.args;
  CaricoArgs args;
  if (ctx.args.defined()) {
    ctx.args.expect_map();
    args = parse_args(ctx.args.child("carico"));
    YAML::Node rest = YAML::Clone(ctx.args.node);
    rest.remove("carico");
    fw_args =
        yaml::Ctx{ctx.args.file, rest, ctx.args.path, ctx.args.line_hint, ctx.args.line_offset};
  }
  fw::Runtime& rt = ctx.runtime;
  std::unique_ptr<CapacityFeed> own;
  if (!rt.services.find<CapacityFeed>()) {
    if (!args.aggregator.empty()) {
      const std::string host = rpc::split_host_port(args.aggregator, "carico.aggregator").first;
      net::check_client_plaintext("CARICO capacity feed", "carico.aggregator", host,
                                  args.tls.enabled(), args.insecure);
      own = std::make_unique<rpc::AggregatorFeed>(rt.clock, args.aggregator, rt.backend.state(),
                                                  args.poll_interval, args.tls);
    } else if (auto* tel = rt.services.find<fw::NodeTelemetry>()) {
      own = std::make_unique<SimulatedAgents>(rt, *tel, args.sim, ctx.seed);
    } else {
      throw InputError(
          "carico: this runtime offers neither a CARICO capacity feed nor node telemetry; give "
          "the aggregator's address (policy args carico.aggregator: HOST:PORT)");
    }
    rt.services.provide<CapacityFeed>(own.get());
  }
  auto policy = std::make_unique<CaricoPolicy>(rt.services, std::move(own));
  const std::string config = config_yaml(args.stale_after);
  auto factory =
      kube::framework_policy([](fw::PluginRegistry& r) { register_carico_plugins(r); },
                             [config] { return fw::parse_scheduler_config(config, "<carico>"); });
  fw::PolicyContext inner{ctx.runtime,          ctx.seed,  ctx.name,          fw_args,
                          ctx.scheduler_config, ctx.stats, ctx.scheduler_name};
  policy->set_driver(factory(inner));
  return policy;
}

}  // namespace

void register_policies(fw::PolicyRegistry& registry) {
  registry.add("carico",
               "CARICO (thesis ch. 3-4): Pod-Capacity from node agents' federated SVD; filter, "
               "score and reserve by Pod-Capacity, ignoring requests",
               make_policy);
}

}  // namespace orrery::carico
