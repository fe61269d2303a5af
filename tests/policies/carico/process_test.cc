// Real processes on loopback: `orrery aggregator` and three `orrery agent`s (two on this
// machine's /proc, one on a replay file), read with `orrery carico status -o json`, and the
// scheduler side (AggregatorFeed + CaricoCapacity) filtering a SIGKILLed agent's stale node.
// Ports are ephemeral (the aggregator listens on port 0 and logs the port it got).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "framework/reservations.h"
#include "policies/carico/plugin.h"
#include "policies/carico/rpc/aggregator_feed.h"
#include "scratch_dir.h"

namespace orrery::carico {
namespace {

using SteadyClock = std::chrono::steady_clock;
using orrery::testing::ScratchDir;

// Waits are deadlines on what the processes show, far above a healthy run even on a loaded 2-core
// machine (scripts/stress-tests.sh); the properties checked stay the same.
constexpr int kDeadlineS = 60;

struct Proc {
  pid_t pid = -1;
  Proc(const std::vector<std::string>& args, const std::string& log) {
    pid = fork();
    if (pid == 0) {
      const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      dup2(fd, 2);
      dup2(fd, 1);
      std::vector<char*> argv;
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
  }
  void signal(int sig) {
    if (pid > 0) ::kill(pid, sig);
  }
  int wait() {
    int status = 0;
    if (pid > 0) waitpid(pid, &status, 0);
    pid = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  ~Proc() {
    if (pid > 0) {
      signal(SIGKILL);
      wait();
    }
  }
};

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int wait_for_port(const std::string& log) {
  const auto until = SteadyClock::now() + std::chrono::seconds(kDeadlineS);
  while (SteadyClock::now() < until) {
    const std::string text = slurp(log);
    const auto at = text.rfind("aggregator listening");
    if (at != std::string::npos) {
      const auto p = text.find("port=", at);
      if (p != std::string::npos) return std::stoi(text.substr(p + 5));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return -1;
}

nlohmann::json status(const std::string& target) {
  const std::string cmd =
      std::string(ORRERY_BIN) + " carico status --aggregator " + target + " -o json 2>/dev/null";
  FILE* f = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, f)) out.append(buf, n);
  if (pclose(f) != 0 || out.empty()) return nullptr;
  return nlohmann::json::parse(out);
}

// Seconds until `status` lists every name in `want`, or -1 after `limit_s`.
double until_listed(const std::string& target, const std::set<std::string>& want, double limit_s) {
  const auto t0 = SteadyClock::now();
  while (std::chrono::duration<double>(SteadyClock::now() - t0).count() < limit_s) {
    const auto j = status(target);
    if (!j.is_null()) {
      std::set<std::string> have;
      for (const auto& n : j["nodes"])
        if (n["age_s"].get<double>() < 2.0) have.insert(n["node"].get<std::string>());
      bool all = true;
      for (const auto& w : want) all = all && have.count(w);
      if (all) return std::chrono::duration<double>(SteadyClock::now() - t0).count();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return -1;
}

class ManualClock : public fw::Clock {
 public:
  Time now_us() const override {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               SteadyClock::now().time_since_epoch())
        .count();
  }
  fw::TimerId at(Time, fw::TimerTarget*, uint64_t) override { return 1; }
  fw::TimerId at(Time, std::function<void()>) override { return 1; }
  void cancel(fw::TimerId) override {}
};

TEST(CaricoProcesses, AggregatorAndThreeAgentsOnLoopback) {
  ScratchDir d("carico-proc-test");
  std::ostringstream replay;
  replay << "t_s,cpu_util,mem_util,cpu_pressure,pods\n";
  for (int i = 0; i < 50; ++i)
    replay << i * 0.1 << "," << 0.2 + 0.1 * (i % 5) / 5 << ",0.4,0.05,2\n";
  const std::string rfile = d.write("node.csv", replay.str());
  const std::string bin = ORRERY_BIN;
  const std::string alog = d.path("aggregator.log");
  auto agg =
      std::make_unique<Proc>(std::vector<std::string>{bin, "aggregator", "--listen", "127.0.0.1:0",
                                                      "--metrics-listen", "127.0.0.1:0"},
                             alog);
  const int port = wait_for_port(alog);
  ASSERT_GT(port, 0) << slurp(alog);
  const std::string target = "127.0.0.1:" + std::to_string(port);
  auto agent = [&](const std::string& node, const std::string& source) {
    return std::make_unique<Proc>(std::vector<std::string>{bin, "agent", "--aggregator", target,
                                                           "--node", node, "--source", source},
                                  d.path(node + ".log"));
  };
  auto a1 = agent("proc-a", "proc");
  auto a2 = agent("proc-b", "proc");
  auto a3 = agent("replayed", "replay:" + rfile);
  const std::set<std::string> all{"proc-a", "proc-b", "replayed"};

  // 1. All three report.
  const double first = until_listed(target, all, kDeadlineS);
  EXPECT_GE(first, 0) << "not all nodes within " << kDeadlineS << " s\n" << slurp(alog);

  // 2. Kill and restart the aggregator on the same port: all three report again.
  agg->signal(SIGKILL);
  agg->wait();
  agg =
      std::make_unique<Proc>(std::vector<std::string>{bin, "aggregator", "--listen", target}, alog);
  ASSERT_EQ(wait_for_port(alog), port) << slurp(alog);
  const double back = until_listed(target, all, kDeadlineS);
  EXPECT_GE(back, 0) << "not all nodes back within " << kDeadlineS << " s of the restart\n"
                     << slurp(d.path("proc-a.log"));

  // 3. SIGKILL one agent: its report goes stale and the scheduler's plugin filters the node
  // (staleAfter 3 s) while the live agents' nodes stay usable. Polled until the picture holds (a
  // loaded machine can delay a live agent's report past 3 s for a moment), then checked whole.
  a2->signal(SIGKILL);
  a2->wait();
  ClusterState state;
  std::vector<NodeId> nodes;
  for (const char* name : {"proc-a", "proc-b", "replayed"}) {
    Node nd;
    nd.name = name;
    nd.allocatable[kPods] = 110;
    nodes.push_back(state.add_node(nd));
  }
  ManualClock clock;
  rpc::AggregatorFeed feed(clock, target, state);
  fw::Reservations res;
  CaricoCapacity plugin(&feed, &res);
  auto stale_node_filtered = [&] {
    feed.on_timer(0);  // one poll of the table
    const auto c = feed.capacity(state, nodes[1], clock.now_us());
    return c && c->age_s > 3.0 && !plugin.available(state, nodes[1], clock.now_us()) &&
           plugin.available(state, nodes[0], clock.now_us()) &&
           plugin.available(state, nodes[2], clock.now_us());
  };
  const auto until = SteadyClock::now() + std::chrono::seconds(kDeadlineS);
  while (!stale_node_filtered() && SteadyClock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const auto j = status(target);
  ASSERT_FALSE(j.is_null());
  for (const auto& n : j["nodes"]) {
    if (n["node"] == "proc-b") {
      EXPECT_GT(n["age_s"].get<double>(), 3.0);
    }
    EXPECT_GE(n["pod_capacity"].get<double>(), 0.0);
  }
  const auto c = feed.capacity(state, nodes[1], clock.now_us());
  ASSERT_TRUE(c);
  EXPECT_GT(c->age_s, 3.0);
  EXPECT_FALSE(plugin.available(state, nodes[1], clock.now_us()));  // stale: not usable
  EXPECT_TRUE(plugin.available(state, nodes[0], clock.now_us()));
  EXPECT_EQ(slurp(alog).find("level=error"), std::string::npos);

  // 4. SIGTERM: clean shutdown, exit 0.
  agg->signal(SIGTERM);
  a1->signal(SIGTERM);
  a3->signal(SIGTERM);
  EXPECT_EQ(agg->wait(), 0);
  EXPECT_EQ(a1->wait(), 0);
  EXPECT_EQ(a3->wait(), 0);
  EXPECT_NE(slurp(alog).find("aggregator stopped"), std::string::npos);
}

TEST(CaricoProcesses, BadInputAtStartUpExitsOne) {
  ScratchDir d("carico-bad");
  const std::string bad = d.write("bad.csv", "t_s,cpu_util,mem_util\n0,0.1,0.2\n0.1,oops,0.2\n");
  const std::string cmd = std::string(ORRERY_BIN) +
                          " agent --aggregator 127.0.0.1:1 --node n --source replay:" + bad +
                          " 2>" + d.path("err.txt");
  EXPECT_EQ(WEXITSTATUS(system(cmd.c_str())), 1);
  EXPECT_NE(slurp(d.path("err.txt")).find(bad + ":3: cpu_util: expected a finite number"),
            std::string::npos)
      << slurp(d.path("err.txt"));
  const std::string cmd2 =
      std::string(ORRERY_BIN) + " aggregator --listen nonsense 2>" + d.path("err2.txt");
  EXPECT_EQ(WEXITSTATUS(system(cmd2.c_str())), 1);
  EXPECT_NE(slurp(d.path("err2.txt")).find("--listen: expected HOST:PORT"), std::string::npos);
  const std::string cmd3 = std::string(ORRERY_BIN) +
                           " carico status --aggregator 127.0.0.1:1 -o json 2>" +
                           d.path("err3.txt");
  EXPECT_EQ(WEXITSTATUS(system(cmd3.c_str())), 1);
  EXPECT_NE(slurp(d.path("err3.txt")).find("cannot reach the CARICO aggregator"),
            std::string::npos);
}

}  // namespace
}  // namespace orrery::carico
