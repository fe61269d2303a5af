#!/usr/bin/env python3
"""The load and the nodes of the KubeDSM authors' testbed, measured from their raw histories
(AUT-Cloud-Lab/MineDraft). Written for orrery (docs/repro/kubedsm.md, "Load stalls, N2 and D");
it reads MineDraft's JSON histories and nothing else of that repository.

    python3 docs/repro/tools/minedraft_load.py MINEDRAFT_GIT_DIR

Runs: the newest dated directory of each scheduler (ecmus-qos-aware = KubeDSM, kube-schedule =
K8S) and scenario 1.1_0.4 ... 1.6_0.4 and 1.5_0.1 ... 1.5_0.5 (the figures' scenarios), every
second record (the records come in identical pairs: 30 s resolution). R, the total rate a
deployment's HPA measured, is metric_value x bound pods. A run's load starts 30 s before the
first record in which A-C together measure more than 10 req/s; cycle k is [start + 90k,
start + 90(k+1)), k = 0 ... 11.

1. Load per cycle: per cycle, R of A-C together (and of D) over its mean in cycles 1-7 of the same
   run, averaged over runs; the share of records below 0.6 of that mean; the mean bound pods.
   genny's draws are independent and identically distributed across cycles, so without a change
   of the load these would be flat.
2. Stall episodes: maximal stretches of records in cycles 1-11 with R(A-C) below 0.6 of the
   cycles-1-7 mean: how many begin per run in each cycle, their lengths in records, and the
   depth (their lowest R over the mean).
3. Node occupancy while pods wait: in records where some pod of A or C (1 core, 950 Mi) is on the
   cloud node, the cores of A-D pods (Table 5 requests) on each edge node. A node at its pod
   allocatable leaves such a pod on the cloud; KubeDSM would move it otherwise.
4. Counts in cycles 1-7 against genny's draws: the mean bound pods of each deployment against
   E[max(1, round(N(mean c, sd c)))], with c for D as genny's config counts it (3 cores / 3 GB,
   c = 1) and as MineDraft's config does (2 / 2, c = 1.5).
5. Migrations of Fig. 10's variants (1.3_0.4, 1.4_0.4): a pod of a deployment gone and a new pod
   of the same deployment bound in the same record is a replacement (a migration, or a
   scale-down and a scale-up within 30 s); per run, on the same node, or by the tiers it left
   and joined.
6. The idle head and tail (before the first and after the last record in which some deployment
   has more than one pod): the share of A-D's pods on the edge, over those records.
"""
import json
import random
import re
import statistics
import subprocess
import sys
from collections import Counter, defaultdict

EDGE = ["uq7g5w631-01", "uq7j5k991-01", "uq7p7x251-01"]  # N2, N3, N4
CLOUD = "uq7p7w241-01"  # N5
NODE_NAMES = {"uq7g5w631-01": "N2", "uq7j5k991-01": "N3", "uq7p7x251-01": "N4"}
DEPLOYMENTS = ("A", "B", "C", "D")
CORES = {"A": 1, "B": 1, "C": 1, "D": 2}
COEF = {"A": 3.0, "B": 2.1875, "C": 3.0}
SCHEDULERS = [("ecmus-qos-aware", "KubeDSM"), ("kube-schedule", "K8S")]
SCENARIO = re.compile(r"normal_scenario_(1\.[1-6]_0\.4|1\.5_0\.[1-5])$")


def git(gitdir, *args):
    return subprocess.run(["git", "--git-dir", gitdir, *args], check=True,
                          capture_output=True, text=True).stdout


def newest_runs(gitdir, scheduler):
    """scenario -> the history paths of the newest dated directory of `scheduler`."""
    by_dir = defaultdict(list)
    for path in git(gitdir, "ls-tree", "-r", "--name-only", "HEAD", "reports/").split():
        parts = path.split("/")
        if len(parts) == 5 and parts[1] == scheduler and SCENARIO.match(parts[3]):
            by_dir[(parts[3].replace("normal_scenario_", ""), parts[2])].append(path)
    newest = {}
    for (scen, date), paths in by_dir.items():
        if scen not in newest or date > newest[scen][0]:
            newest[scen] = (date, paths)
    return {scen: paths for scen, (_, paths) in newest.items()}


def seconds(stamp):
    return sum(float(v) * {"h": 3600, "m": 60, "s": 1}[u]
               for v, u in re.findall(r"([\d.]+)([hms])", stamp))


def records(history):
    """Every second record: (time s, {deployment: R}, {deployment: pods}, {node: Counter})."""
    out = []
    for rec in history[::2]:
        metric = {h["name"][0].upper(): h["metric_value"] for h in rec["hpa"]}
        pods, per_node = Counter(), defaultdict(Counter)
        for node, names in rec["pod_placement"].items():
            if not node:
                continue  # unbound
            for name in names:
                i = name.find("-deployment")
                if i > 0 and name[:i].upper() in DEPLOYMENTS:
                    pods[name[:i].upper()] += 1
                    per_node[node][name[:i].upper()] += 1
        rate = {d: metric.get(d, 0.0) * pods[d] for d in "ABCD"}
        out.append((seconds(rec["timestamp"]), rate, pods, per_node))
    return out


def cycles(run):
    """[(cycle, record)] over cycles 0-11, and the run's cycles-1-7 mean R of A-C and of D."""
    start = next(t for t, rate, _, _ in run if rate["A"] + rate["B"] + rate["C"] > 10) - 30
    tagged = [(int((t - start) // 90), rec) for rec in run for t in [rec[0]]
              if 0 <= t - start < 12 * 90]
    base = [rec for k, rec in tagged if 1 <= k <= 7]
    abc = statistics.mean(sum(r[1][d] for d in "ABC") for r in base)
    d = statistics.mean(r[1]["D"] for r in base)
    return tagged, abc, d


def load_profile(runs):
    prof = defaultdict(list)
    for run in runs:
        tagged, abc, d = cycles(run)
        for k in range(12):
            recs = [r for c, r in tagged if c == k]
            if not recs:
                continue
            r_abc = [sum(r[1][x] for x in "ABC") for r in recs]
            prof[("abc", k)].append(statistics.mean(r_abc) / abc)
            prof[("low", k)].append(sum(v < 0.6 * abc for v in r_abc) / len(recs))
            prof[("d", k)].append(statistics.mean(r[1]["D"] for r in recs) / d)
            prof[("pods", k)].append(statistics.mean(sum(r[2][x] for x in "ABC") for r in recs))
    return {key: statistics.mean(v) for key, v in prof.items()}


def episodes(runs):
    starts, lengths, depths = Counter(), Counter(), []
    for run in runs:
        tagged, abc, _ = cycles(run)
        seq = [(k, sum(r[1][x] for x in "ABC")) for k, r in tagged if k >= 1]
        i = 0
        while i < len(seq):
            if seq[i][1] >= 0.6 * abc:
                i += 1
                continue
            j = i
            while j < len(seq) and seq[j][1] < 0.6 * abc:
                j += 1
            starts[seq[i][0]] += 1
            lengths[j - i] += 1
            depths.append(min(v for _, v in seq[i:j]) / abc)
            i = j
    return starts, lengths, depths


def occupancy(runs):
    held = defaultdict(Counter)
    for run in runs:
        for _, _, _, per_node in run:
            if not (per_node[CLOUD]["A"] or per_node[CLOUD]["C"]):
                continue
            for node in EDGE:
                held[NODE_NAMES[node]][sum(CORES[d] * n for d, n in per_node[node].items())] += 1
    return held


VARIANTS = [("ecmus-qos-aware", "Original 5/3"), ("ecmus-mid-migration", "MidMig 2/1"),
            ("ecmus-no-edge-migration", "NoEdgeMig 5/0"),
            ("ecmus-no-cloud-offload", "NoCloudOffload 0/3"),
            ("ecmus-no-migration", "NoMigration 0/0")]


def replacements(history):
    """Per record and deployment, pods gone paired with pods new: a new pod on the node a gone
    one left is "same node"; the others pair cloud leavers with edge joiners first."""
    moves, prev = Counter(), None
    for rec in history[::2]:
        pods = {}
        for node, names in rec["pod_placement"].items():
            for name in names:
                i = name.find("-deployment")
                if i > 0 and node:
                    pods[name] = (name[:i].upper(), node)
        if prev is not None:
            for d in "ABCD":
                gone = Counter(prev[q][1] for q in prev if q not in pods and prev[q][0] == d)
                new = Counter(pods[q][1] for q in pods if q not in prev and pods[q][0] == d)
                same = gone & new
                moves["same node"] += sum(same.values())
                tier = lambda n: "cloud" if n == CLOUD else "edge"
                rest_gone = sorted(tier(n) for n in (gone - same).elements())
                rest_new = sorted((tier(n) for n in (new - same).elements()), reverse=True)
                for a, b in zip(rest_gone, rest_new):
                    moves[f"{a}->{b}"] += 1
        prev = pods
    return moves


def idle_edge_shares(run):
    """(edge shares of the head's records, of the tail's records) of one run's records."""
    rows = [(sum(sum(per_node[n].values()) for n in EDGE), sum(pods.values()),
             any(n > 1 for n in pods.values())) for _, _, pods, per_node in run]
    busy = [i for i, r in enumerate(rows) if r[2]]
    share = lambda rs: [e / t for e, t, _ in rs if t]
    return share(rows[:busy[0]]), share(rows[busy[-1] + 1:])


def expected(mean, sd, c):
    rng = random.Random(1)
    return statistics.mean(max(1, round(rng.gauss(mean * c, sd * c))) for _ in range(100000))


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 1
    gitdir = sys.argv[1]
    for sched, label in SCHEDULERS:
        by_scen = {scen: [records(json.loads(git(gitdir, "show", "HEAD:" + p))) for p in paths]
                   for scen, paths in sorted(newest_runs(gitdir, sched).items())}
        runs = [run for rs in by_scen.values() for run in rs]
        print(f"== {label} ({sched}), {len(runs)} runs")
        prof = load_profile(runs)
        for key, what in (("abc", "R(A-C) / cycles 1-7"), ("low", "share below 0.6"),
                          ("d", "R(D) / cycles 1-7"), ("pods", "pods of A-C")):
            print(f"  {what:22s}" + " ".join(f"{prof[(key, k)]:5.2f}" for k in range(12)))
        starts, lengths, depths = episodes(runs)
        print("  stall episodes per run beginning in cycle 1..11: " +
              " ".join(f"{starts[k] / len(runs):.2f}" for k in range(1, 12)))
        print(f"  lengths (30 s records): {dict(sorted(lengths.items()))}; depth quartiles "
              f"{[round(q, 2) for q in statistics.quantiles(depths, n=4)]}")
        for node, hist in sorted(occupancy(runs).items()):
            total = sum(hist.values())
            print(f"  {node} cores of pods while A or C waits on the cloud: " +
                  ", ".join(f"{c}: {n / total:.0%}" for c, n in sorted(hist.items())))
        for scen, rs in by_scen.items():
            head, tail = [], []
            for run in rs:
                h, t = idle_edge_shares(run)
                head += h
                tail += t
            print(f"  {scen} idle records on the edge: head {statistics.mean(head):.0%}, "
                  f"tail {statistics.mean(tail):.0%}")
        for scen, rs in by_scen.items():
            mean, sd = map(float, scen.split("_"))
            tagged = [cycles(run)[0] for run in rs]
            counts = {d: statistics.mean(statistics.mean(r[2][d] for k, r in t if 1 <= k <= 7)
                                         for t in tagged)
                      for d in DEPLOYMENTS}
            print(f"  {scen} cycles 1-7 mean pods: " + ", ".join(
                f"{d} {counts[d]:.2f} (genny {expected(mean, sd, COEF[d]):.2f})" for d in "ABC") +
                  f", D {counts['D']:.2f} (genny 3/3: {expected(mean, sd, 1.0):.2f}, "
                  f"2/2: {expected(mean, sd, 1.5):.2f})")
    print("== Fig. 10 variants: pod replacements per run")
    for sched, label in VARIANTS:
        for scen, paths in sorted(newest_runs(gitdir, sched).items()):
            if scen not in ("1.3_0.4", "1.4_0.4"):
                continue
            total = Counter()
            for p in paths:
                total += replacements(json.loads(git(gitdir, "show", "HEAD:" + p)))
            print(f"  {label} {scen} ({len(paths)} runs): " + ", ".join(
                f"{k} {v / len(paths):.1f}" for k, v in sorted(total.items())) +
                  f"; all {sum(total.values()) / len(paths):.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
