#include "policies/federated/megha.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "fixtures.h"
#include "policies/federated/run.h"

namespace orrery::federated {
namespace {

// One LM, two GMs, one worker per partition. Only worker 0 (GM 0's internal partition)
// satisfies constraint 0; both jobs (one per GM, both at t = 0) have one 1-s task needing it.
struct Race {
  ClusterConfig c = parse_cluster_config(testing::megha_json({{{"1"}, {"0"}}}), "race.json");
  Workload w = make_workload(testing::trace("0 1 1 1\n0 1 1 1\n"), testing::no_constraints(1), 1, c,
                             std::vector<ConstraintOverride>{{0, 0, 1}, {1, 0, 1}});
};

// Two GMs race for one worker: exactly one mapping is accepted, the other is rejected (one
// inconsistency), the loser retries and runs once it learns the worker is free again.
TEST(Megha, TwoGmsRacingForOneWorkerOneWinsTheOtherRetries) {
  Race r;
  RunOptions o;
  o.wall_clock = false;
  o.aligned_heartbeats = true;  // the LM beats at 0, 5 s, 10 s, ...
  RunOutput out = run_federated(r.w, r.c, o);
  EXPECT_EQ(out.inconsistencies, 1u);
  EXPECT_EQ(out.summary["messages"]["verify_requests"], 3);  // 2 racing + 1 retry
  EXPECT_EQ(out.summary["messages"]["retries_placed"], 0);   // nothing else was free
  ASSERT_EQ(out.jobs.size(), 2u);
  // Winner (GM 0, internal partition): verify 0.5 ms, launch 1 ms, runs 1 s, reported +0.5 ms.
  EXPECT_EQ(out.jobs[0].finish, 1'001'500);
  EXPECT_NEAR(out.jobs[0].delay_s(), 0.0015, 1e-12);
  // Loser (GM 1, external partition): learns the worker is free from the 5 s heartbeat
  // (arrives 5.0005), maps it again: verify 5.001, launch 5.0015, ends 6.0015, reported 6.002.
  EXPECT_EQ(out.jobs[1].finish, 6'002'000);
  EXPECT_EQ(out.summary["messages"]["inconsistencies_external"], 1);
}

// After a rejection the GM retries at once on its refreshed view (another suitable worker is
// free there); with the reference simulator's behaviour the task instead waits at the head of the
// queue until a worker it fits is reported free.
TEST(Megha, RejectedTaskRetriesAtOnceOrWaitsAsTheReference) {
  // GM 0's partition: workers A and C with constraint 0; GM 1's: two workers without it.
  ClusterConfig c = parse_cluster_config(testing::megha_json({{{"11"}, {"00"}}}), "c.json");
  Workload w = make_workload(testing::trace("0 1 5 5\n0 1 1 1\n"), testing::no_constraints(1), 1, c,
                             std::vector<ConstraintOverride>{{0, 0, 1}, {1, 0, 1}});
  RunOptions o;
  o.pick = Pick::kMinConstraints;  // both GMs pick A (lowest index): a deterministic race
  o.aligned_heartbeats = true;
  RunOutput now = run_federated(w, c, o);
  EXPECT_EQ(now.inconsistencies, 1u);
  EXPECT_EQ(now.summary["messages"]["retries_placed"], 1);
  // verify 0.5 ms, reject 1 ms, verify C 1.5 ms, launch 2 ms, runs 1 s, reported 1.0025 s.
  EXPECT_EQ(now.jobs[1].finish, 1'002'500);
  o.retry_rejected = false;
  RunOutput wait = run_federated(w, c, o);
  EXPECT_EQ(wait.inconsistencies, 1u);
  // A frees at 5.0015 (GM 0's 5-s task); GM 1 hears of it at the 10 s beat: reported 11.002 s.
  EXPECT_EQ(wait.jobs[1].finish, 11'002'000);
}

TEST(Megha, HeartbeatPeriodBoundsTheLosersWait) {
  Race r;
  RunOptions o;
  o.heartbeat = sim::kSecond;
  o.aligned_heartbeats = true;
  RunOutput out = run_federated(r.w, r.c, o);
  // The worker frees at 1.0015; the heartbeat at 2 s tells GM 1: reported at 3.002.
  EXPECT_EQ(out.jobs[1].finish, 3'002'000);
}

// §4.4: status updates carry per-GM changes, and a worker freed by a GM's own task reaches that
// GM only through the completion message.
TEST(Megha, DeltasExcludeChangesAGmAlreadyKnows) {
  Race r;
  sim::EventLoop loop;
  Recorder rec(r.w, r.c.workers(), 2.0);
  SimParams p;
  p.aligned_heartbeats = true;
  MeghaSim s(loop, r.w, r.c, p, rec);
  s.start();
  const uint32_t w0 = s.slot_of(0, 0);
  loop.run_until(600);  // both verifies processed at 0.5 ms
  EXPECT_FALSE(s.lm_sees_free(w0));
  EXPECT_FALSE(s.change_pending(0, w0));  // GM 0 made the change
  // GM 1 was told in the rejection (its pending change went out piggybacked).
  EXPECT_FALSE(s.change_pending(1, w0));
  loop.run_until(1'100);  // rejection processed at 1 ms
  EXPECT_FALSE(s.gm_sees_free(1, w0));
  EXPECT_EQ(s.queued(), 1u);
  loop.run_until(1'001'600);  // completion at 1.0015 s
  EXPECT_TRUE(s.lm_sees_free(w0));
  EXPECT_TRUE(s.gm_sees_free(0, w0));     // from its own completion message
  EXPECT_FALSE(s.change_pending(0, w0));  // never in GM 0's status updates
  EXPECT_TRUE(s.change_pending(1, w0));   // GM 1 learns at the next heartbeat
  EXPECT_FALSE(s.gm_sees_free(1, w0));
  loop.run_until(5'000'600);  // heartbeat at 5 s, delivered at 5.0005: GM 1 maps it at once
  EXPECT_FALSE(s.change_pending(1, w0));
  EXPECT_EQ(s.queued(), 0u);
  loop.run_until();
  EXPECT_TRUE(rec.all_done());
}

// Without constraints and with free workers, every job's delay is the three message delays.
TEST(Megha, UnconstrainedLightLoadDelayIsThreeMessages) {
  ClusterConfig c = parse_cluster_config(
      testing::megha_json({{{"1111"}, {"1111"}}, {{"1111"}, {"1111"}}}), "c.json");
  Workload w = make_workload(testing::trace("0 3 1 1 2 3\n1 2 1 1 1\n2.5 1 4 4\n"),
                             testing::no_constraints(1), 1, c);
  for (Pick pick : {Pick::kRandom, Pick::kMinConstraints}) {
    RunOptions o;
    o.pick = pick;
    RunOutput out = run_federated(w, c, o);
    ASSERT_EQ(out.jobs.size(), 3u);
    for (const sim::JobRecord& j : out.jobs) EXPECT_EQ(j.finish - j.arrival - j.ideal, 1'500);
    EXPECT_EQ(out.inconsistencies, 0u);
  }
}

// GMs search their internal partitions first: with room everywhere, no mapping lands in
// another GM's partition, so no inconsistency can arise.
TEST(Megha, InternalPartitionsFirst) {
  ClusterConfig c = parse_cluster_config(
      testing::megha_json({{{"11111111"}, {"11111111"}, {"11111111"}}}), "c.json");
  std::string tr;
  // 10 jobs x 2 tasks, round-robin over 3 GMs: at most 8 tasks per GM, 8 workers per partition.
  for (int j = 0; j < 10; ++j) tr += std::to_string(j * 0.001) + " 2 1 1 1\n";
  Workload w = make_workload(testing::trace(tr), testing::no_constraints(1), 1, c);
  RunOptions o;
  RunOutput out = run_federated(w, c, o);
  EXPECT_EQ(out.inconsistencies, 0u);
  EXPECT_EQ(out.summary["jobs"]["delay_p99_s"], 0.0015);
}

// The resonance that strictly periodic heartbeats create with a periodic workload. One LM, two
// GMs; worker A (GM 0's partition) has constraint 0, worker B (GM 1's) has none. One job per
// second, alternating GMs: GM 0's jobs need A and take it at every even second (GM 0 learns A is
// free from its own completions); GM 1's first job has a task needing A. With beats exactly
// every 2 s from t = 0, every update GM 1 gets says A is free just as GM 0's next job takes it,
// so GM 1's mapping is rejected every time until GM 0's jobs stop. Jittered beats drift out of
// step and the task runs within a few beats.
TEST(Megha, JitteredHeartbeatsBreakResonanceWithPeriodicLoad) {
  ClusterConfig c = parse_cluster_config(testing::megha_json({{{"1"}, {"0"}}}), "c.json");
  std::string tr;
  std::vector<ConstraintOverride> need_a;
  for (int j = 0; j < 40; ++j) {
    tr += std::to_string(j) + " 1 1 1\n";
    if (j % 2 == 0 || j == 1) need_a.push_back({static_cast<uint32_t>(j), 0, 1});
  }
  Workload w = make_workload(testing::trace(tr), testing::no_constraints(1), 1, c, need_a);
  auto delay_of_job_1 = [&](bool aligned) {
    RunOptions o;
    o.heartbeat = 2 * sim::kSecond;
    o.aligned_heartbeats = aligned;
    RunOutput r = run_federated(w, c, o);
    return r.jobs[1].delay_s();
  };
  const double strict = delay_of_job_1(true), jittered = delay_of_job_1(false);
  EXPECT_GT(strict, 36.0);  // waits for GM 0's last job (t = 38) to finish
  EXPECT_LT(jittered, strict / 2);
}

// LmOrder::kRotate: consecutive searches start at consecutive LMs, so light load spreads over
// the LMs instead of filling LM 1's partitions first.
TEST(Megha, RotatingLmOrderSpreadsLoad) {
  // 2 LMs x 1 GM, 2 workers each; 2 simultaneous one-task jobs.
  ClusterConfig c = parse_cluster_config(testing::megha_json({{{"11"}}, {{"11"}}}), "c.json");
  Workload w =
      make_workload(testing::trace("0 1 1 1\n0 1 1 1\n"), testing::no_constraints(1), 1, c);
  for (LmOrder order : {LmOrder::kFixed, LmOrder::kRotate}) {
    sim::EventLoop loop;
    Recorder rec(w, c.workers(), 2.0);
    SimParams p;
    p.lm_order = order;
    MeghaSim s(loop, w, c, p, rec);
    s.start();
    loop.run_until(100);  // both placements made
    const bool lm1_used =
        !s.gm_sees_free(0, s.slot_of(1, 0)) || !s.gm_sees_free(0, s.slot_of(1, 1));
    EXPECT_EQ(lm1_used, order == LmOrder::kRotate);
    loop.run_until();
    EXPECT_TRUE(rec.all_done());
  }
}

// The published LM empties its pending update for a GM when it rejects that GM's mapping,
// so the rejection carries nothing. GM 0 takes A and B (its internal partition, both with C0);
// GM 1's task needing C0 goes to A and is rejected. With the piggybacked state GM 1 learns that
// B is busy too and waits; without it, it retries on B and is rejected a second time.
TEST(Megha, ReferenceRejectionCarriesNoState) {
  ClusterConfig c = parse_cluster_config(testing::megha_json({{{"11"}, {"00"}}}), "c.json");
  Workload w = make_workload(testing::trace("0 2 1 1 1\n0 1 1 1\n"), testing::no_constraints(1), 1,
                             c, std::vector<ConstraintOverride>{{0, 0, 1}, {0, 1, 1}, {1, 0, 1}});
  for (bool drop : {false, true}) {
    sim::EventLoop loop;
    Recorder rec(w, c.workers(), 2.0);
    SimParams p;
    p.pick = Pick::kMinConstraints;
    p.aligned_heartbeats = true;
    p.quirks.drop_rejection_state = drop;
    MeghaSim s(loop, w, c, p, rec);
    s.start();
    loop.run_until(1'100);  // first rejection processed at 1 ms
    const uint32_t b = s.slot_of(0, 1);
    EXPECT_FALSE(s.change_pending(1, b));    // taken from the LM either way
    EXPECT_EQ(s.gm_sees_free(1, b), false);  // drop: mapped to B by the retry
    loop.run_until();
    EXPECT_TRUE(rec.all_done());
    EXPECT_EQ(s.counters().inconsistencies, drop ? 2u : 1u);
    EXPECT_EQ(s.counters().retries_placed, drop ? 1u : 0u);
  }
}

// The published simulator's heartbeats start 50 ms before the first arrival, every LM at once.
// Race: the loser learns of the freed worker at the second beat.
TEST(Megha, ReferenceFirstHeartbeatFiftyMsBeforeFirstArrival) {
  ClusterConfig c = parse_cluster_config(testing::megha_json({{{"1"}, {"0"}}}), "race.json");
  auto finish_of_loser = [&](const char* trace, bool early) {
    Workload w = make_workload(testing::trace(trace), testing::no_constraints(1), 1, c,
                               std::vector<ConstraintOverride>{{0, 0, 1}, {1, 0, 1}});
    RunOptions o;
    o.wall_clock = false;
    o.aligned_heartbeats = true;
    o.quirks.early_first_heartbeat = early;
    return run_federated(w, c, o).jobs[1].finish;
  };
  // Arrivals at 1 s: beats at 1, 6 s (ours) or 0.95, 5.95 s; the update arrives 0.5 ms later,
  // then verify, launch, 1 s of work and the completion: +2.0015 s.
  EXPECT_EQ(finish_of_loser("1 1 1 1\n1 1 1 1\n", false), 7'002'000);
  EXPECT_EQ(finish_of_loser("1 1 1 1\n1 1 1 1\n", true), 6'952'000);
  // Arrivals at 0: the beat at -50 ms would carry nothing; the first is at 4.95 s.
  EXPECT_EQ(finish_of_loser("0 1 1 1\n0 1 1 1\n", true), 5'952'000);
  EXPECT_TRUE(parse_quirks("rejection-state").drop_rejection_state);
  EXPECT_FALSE(parse_quirks("rejection-state").early_first_heartbeat);
  const ReferenceQuirks two = parse_quirks("early-heartbeat,fair-queue-le");
  EXPECT_TRUE(two.early_first_heartbeat && two.fair_queue_le);
  EXPECT_FALSE(two.drop_rejection_state || two.master_picks_min);
  EXPECT_TRUE(parse_quirks("all").master_picks_min);
  EXPECT_FALSE(parse_quirks("none").fair_queue_le);
  EXPECT_THROW(parse_quirks("early-heartbeat,late"), InputError);
  RunOptions ref;
  set_reference(Arch::kMegha, true, &ref);
  EXPECT_TRUE(ref.quirks.drop_rejection_state && ref.quirks.early_first_heartbeat);
  EXPECT_FALSE(ref.retry_rejected);
  set_reference(Arch::kMegha, false, &ref);
  EXPECT_FALSE(ref.quirks.drop_rejection_state || ref.quirks.early_first_heartbeat);
}

// The published LM hands the rejection its live pending dict for the GM and empties it: the
// rejection delivers what the LM records for that GM while it is in flight. Worker A (GM 0's
// partition, constraint 0) runs GM 0's 1-s task from 0.001 s; GM 1's task needing it arrives at
// 1 s and is mapped to A (GM 1 was never told A is busy), verified at 1.0005 s while A is still
// busy, rejected; the rejection arrives at 1.001 s, the instant A's task ends.
//  - Published (rejection-state + lm-frees-at-end): the LM frees A at the task's end, which
//    comes first (it was scheduled first), so the rejection carries "A free" and the task, back
//    at the head of the queue, takes A at once: verify 1.0015, launch 1.002, reported 2.0025.
//  - The LM freeing A only when the completion message arrives (1.0015), or a rejection that
//    carries the state pending at the rejection (A busy): the task waits for the 5-s heartbeat:
//    update 5.0005, verify 5.001, launch 5.0015, reported 6.002.
TEST(Megha, ReferenceRejectionCarriesChangesMadeInFlight) {
  ClusterConfig c = parse_cluster_config(testing::megha_json({{{"1"}, {"0"}}}), "c.json");
  Workload w = make_workload(testing::trace("0 1 1 1\n1 1 1 1\n"), testing::no_constraints(1), 1, c,
                             std::vector<ConstraintOverride>{{0, 0, 1}, {1, 0, 1}});
  auto run = [&](bool live, bool at_end) {
    sim::EventLoop loop;
    Recorder rec(w, c.workers(), 2.0);
    SimParams p;
    p.aligned_heartbeats = true;
    p.retry_rejected = false;  // the reference GM
    p.quirks.drop_rejection_state = live;
    p.quirks.lm_frees_at_task_end = at_end;
    MeghaSim s(loop, w, c, p, rec);
    s.start();
    loop.run_until(1'001'000);  // A's task end and the rejection's arrival
    EXPECT_EQ(s.lm_sees_free(s.slot_of(0, 0)), at_end);
    loop.run_until();
    EXPECT_EQ(s.counters().inconsistencies, 1u);
    return rec.job_records()[1].finish;
  };
  EXPECT_EQ(run(true, true), 2'002'500);
  EXPECT_EQ(run(true, false), 6'002'000);
  EXPECT_EQ(run(false, true), 6'002'000);
  EXPECT_EQ(run(false, false), 6'002'000);
}

// The published GM sends an arriving job's mappings as one message per run of consecutive
// mappings to the same LM, at most 100 per message. Two LMs; in GM 0's partitions only LM 2's
// workers have constraint 0. Tasks: none, C0, none, none -> LM 1, LM 2, LM 1, LM 1: three
// messages [t0] [t1] [t2 t3]. A 250-task job on one LM goes as 100 + 100 + 50.
TEST(Megha, ReferenceBatchesAJobsMappingsPerLm) {
  {
    ClusterConfig c = parse_cluster_config(
        testing::megha_json({{{"0000"}, {"0000"}}, {{"1111"}, {"0000"}}}), "c.json");
    Workload w = make_workload(testing::trace("0 4 1 1 1 1 1\n"), testing::no_constraints(1), 1, c,
                               std::vector<ConstraintOverride>{{0, 1, 1}});
    for (bool batched : {false, true}) {
      RunOptions o;
      o.wall_clock = false;
      o.quirks.batched_verify = batched;
      RunOutput out = run_federated(w, c, o);
      EXPECT_EQ(out.summary["messages"]["verify_requests"], 4);
      EXPECT_EQ(out.summary["messages"].contains("verify_batches"), batched);
      if (batched) {
        EXPECT_EQ(out.summary["messages"]["verify_batches"], 3);
      }
      EXPECT_NEAR(out.jobs[0].delay_s(), 0.0015, 1e-12);  // batching adds no delay
    }
  }
  ClusterConfig c = parse_cluster_config(
      testing::megha_json({{{std::string(250, '1')}, {std::string(250, '1')}}}), "c.json");
  std::string tr = "0 250 1";
  for (int i = 0; i < 250; ++i) tr += " 1";
  Workload w = make_workload(testing::trace(tr + "\n"), testing::no_constraints(1), 1, c);
  sim::EventLoop loop;
  Recorder rec(w, c.workers(), 2.0);
  SimParams p;
  p.quirks.batched_verify = true;
  MeghaSim s(loop, w, c, p, rec);
  s.start();
  loop.run_until();
  EXPECT_EQ(s.counters().verify_batches, 3u);
  EXPECT_EQ(s.counters().verify_requests, 250u);
  EXPECT_EQ(s.counters().launches, 250u);
}

// One LM answers a batch's rejections with one message. GM 0 takes A and B (its partition,
// both with C0) at 0.5 ms; GM 1's job (same instant, one batch: W in its own partition, which
// has no C0 worker, then
// A and B, its only C0 workers) has W accepted and A, B rejected: one rejection message for two
// tasks, which wait (reference GM) until the 5-s update reports A and B free: verified 5.001,
// launched 5.0015, reported 6.002 s.
TEST(Megha, ReferenceOneRejectionPerBatch) {
  ClusterConfig c = parse_cluster_config(testing::megha_json({{{"11"}, {"00"}}}), "c.json");
  Workload w =
      make_workload(testing::trace("0 2 1 1 1\n0 3 1 1 1 1\n"), testing::no_constraints(1), 1, c,
                    std::vector<ConstraintOverride>{{0, 0, 1}, {0, 1, 1}, {1, 1, 1}, {1, 2, 1}});
  for (bool batched : {false, true}) {
    sim::EventLoop loop;
    Recorder rec(w, c.workers(), 2.0);
    SimParams p;
    p.pick = Pick::kMinConstraints;
    p.aligned_heartbeats = true;
    p.retry_rejected = false;
    p.quirks.batched_verify = batched;
    MeghaSim s(loop, w, c, p, rec);
    s.start();
    loop.run_until();
    EXPECT_EQ(s.counters().inconsistencies, 2u);
    EXPECT_EQ(s.counters().verify_batches, batched ? 2u : 0u);  // one per job
    EXPECT_EQ(s.counters().reject_batches, batched ? 1u : 0u);
    EXPECT_EQ(rec.job_records()[1].finish, 6'002'000);
  }
}

// The published LM's update lists every worker taken ("busy") and freed ("available") by other
// GMs since the last update, and the GM applies all busy entries before all available ones, so
// a worker freed and taken again in between is reported free. GM 0 runs a 1-s task on A at
// 0.001 s and a 10-s task on A from 2.0015 s (it learns A is free from its own completion);
// at the 5-s update GM 1 sees A busy from our state delta, free from the published lists.
TEST(Megha, ReferenceUpdateListsReportAWorkerFreedAndRetakenAsFree) {
  ClusterConfig c = parse_cluster_config(testing::megha_json({{{"1"}, {"0"}}}), "c.json");
  Workload w =
      make_workload(testing::trace("0 1 1 1\n0 1 1 1\n2 1 10 10\n"), testing::no_constraints(1), 1,
                    c, std::vector<ConstraintOverride>{{0, 0, 1}, {2, 0, 1}});
  for (bool lists : {false, true}) {
    sim::EventLoop loop;
    Recorder rec(w, c.workers(), 2.0);
    SimParams p;
    p.aligned_heartbeats = true;
    p.quirks.update_lists = lists;
    MeghaSim s(loop, w, c, p, rec);
    s.start();
    const uint32_t a = s.slot_of(0, 0);
    loop.run_until(4'000'000);
    EXPECT_FALSE(s.lm_sees_free(a));  // GM 0's 10-s task
    loop.run_until(5'000'600);        // the 5-s update has arrived
    EXPECT_EQ(s.gm_sees_free(1, a), lists);
    loop.run_until();
    EXPECT_TRUE(rec.all_done());
  }
}

TEST(Megha, ReferenceQuirkNames) {
  const ReferenceQuirks q = parse_quirks("batched-verify,lm-frees-at-end,update-lists");
  EXPECT_TRUE(q.batched_verify && q.lm_frees_at_task_end && q.update_lists);
  EXPECT_FALSE(q.drop_rejection_state || q.early_first_heartbeat || q.master_picks_min);
  const ReferenceQuirks all = parse_quirks("all");
  EXPECT_TRUE(all.batched_verify && all.lm_frees_at_task_end && all.drop_rejection_state);
  EXPECT_FALSE(all.update_lists);  // opt-in: docs/repro/federated.md
  EXPECT_TRUE(parse_quirks("all,update-lists").update_lists);
  RunOptions ref;
  set_reference(Arch::kMegha, true, &ref);
  EXPECT_TRUE(ref.quirks.batched_verify && ref.quirks.lm_frees_at_task_end);
  EXPECT_THROW(parse_quirks("batched"), InputError);
}

}  // namespace
}  // namespace orrery::federated
