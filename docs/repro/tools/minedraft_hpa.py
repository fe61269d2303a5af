#!/usr/bin/env python3
"""How the KubeDSM authors' HPAs moved their replica counts, measured from their raw histories
(AUT-Cloud-Lab/MineDraft). Written for orrery (docs/repro/kubedsm.md, "The authors' HPA"); it
reads MineDraft's JSON histories and nothing else of that repository.

    python3 docs/repro/tools/minedraft_hpa.py MINEDRAFT_GIT_DIR [--markdown]

Each history sample (nominally every 15 s; the records come in identical pairs, so the effective
resolution is 30 s and only every second sample is used) holds the pods on every node and, per
deployment, the HPA's current metric value `metric_value` (req/s per pod; 5 at the target).
Bound pods of A-D are counted per deployment (pods under the node name "" are unbound and left
out, as in minedraft_edge_ratio.py).

Per scheduler (ecmus-qos-aware = KubeDSM, kube-schedule = K8S) and scenario, over the runs of the
newest dated directory holding the scenario, during the busy part of each run (from the first to
the last sample where some deployment has more than one pod, less its first 90 s, the ramp):
  mean, sd    of each deployment's pod count (over all 30 s samples of all runs)
  chg/min     changes of the count per minute
  rev/min     changes followed within 60 s by a change the other way (overshoot) per minute
and what genny's draws alone would give: mean·c and sd·c (c: A 3, B 2.1875, C 3, D 1; genny's
config and load_config, docs/repro/kubedsm.md).

Measurement noise: the total rate the HPA measured is R = metric_value × pods. Within a steady
stretch (the count unchanged over the last 60 s, so no pod lacks a measurement) R should equal the
offered rate, 5 req/s × the drawn count; the nominal rate is the median of R over the sample and
its two neighbours rounded to a multiple of 5. `sigma` is the standard deviation of
log(R / nominal) over those samples (all scenarios pooled), with quantiles of R / nominal, and
the correlation of log(R / nominal) between steady samples 30 s apart.

Around scale events: for each change of a count that had held for 60 s, R in the record of the
change and the two after it (while the count holds), over R in the record before it: the median
ratio, beside the median of old count / new count.
"""
import json
import math
import statistics
import subprocess
import sys
from collections import Counter, defaultdict

NODES = {"uq7g5w631-01", "uq7j5k991-01", "uq7p7x251-01", "uq7p7w241-01", "uq7g5t611-01"}
DEPLOYMENTS = "ABCD"
COEF = {"A": 3.0, "B": 2.1875, "C": 3.0, "D": 1.0}
SCHEDULERS = [("ecmus-qos-aware", "KubeDSM"), ("kube-schedule", "K8S")]
SCENARIOS = ["1.1_0.4", "1.3_0.4", "1.5_0.4", "1.5_0.1", "1.5_0.2", "1.5_0.5"]


def git(gitdir, *args):
    return subprocess.run(["git", "--git-dir", gitdir, *args], check=True,
                          capture_output=True, text=True).stdout


def newest_runs(gitdir):
    """(scheduler, scenario) -> the history paths of the newest dated directory."""
    by_dir = defaultdict(list)
    for path in git(gitdir, "ls-tree", "-r", "--name-only", "HEAD", "reports/").split():
        parts = path.split("/")
        if len(parts) == 5 and path.endswith(".json"):
            by_dir[(parts[1], parts[3].replace("normal_scenario_", ""), parts[2])].append(path)
    newest = {}
    for (sched, scen, date), paths in by_dir.items():
        if (sched, scen) not in newest or date > newest[(sched, scen)][0]:
            newest[(sched, scen)] = (date, paths)
    return {k: v[1] for k, v in newest.items()}


def samples(history):
    """Every second record: ({deployment: metric}, {deployment: bound pods})."""
    out = []
    for rec in history[::2]:
        metric = {h["name"][0].upper(): h["metric_value"] for h in rec["hpa"]}
        pods = Counter()
        for node, names in rec["pod_placement"].items():
            if node not in NODES:
                continue
            for name in names:
                i = name.find("-deployment")
                if i > 0 and name[:i].upper() in DEPLOYMENTS:
                    pods[name[:i].upper()] += 1
        out.append((metric, pods))
    return out


def busy_part(rows):
    busy = [i for i, (_, pods) in enumerate(rows) if any(pods[d] > 1 for d in DEPLOYMENTS)]
    if not busy:
        return []
    return rows[busy[0] + 3:busy[-1] + 1]  # less the first 90 s (three 30 s samples)


def count_stats(runs):
    counts, changes, reversals, minutes = defaultdict(list), Counter(), Counter(), 0.0
    for rows in runs:
        rows = busy_part(rows)
        if len(rows) < 2:
            continue
        minutes += (len(rows) - 1) * 0.5
        for d in DEPLOYMENTS:
            seq = [pods[d] for _, pods in rows]
            counts[d] += seq
            moves = [i for i in range(1, len(seq)) if seq[i] != seq[i - 1]]
            changes[d] += len(moves)
            for a, b in zip(moves, moves[1:]):
                if b - a <= 2 and (seq[a] - seq[a - 1]) * (seq[b] - seq[b - 1]) < 0:
                    reversals[d] += 1
    return {d: (statistics.mean(counts[d]), statistics.pstdev(counts[d]), changes[d] / minutes,
                reversals[d] / minutes) for d in DEPLOYMENTS if counts[d]}


def steady_ratios(rows, d):
    """(i, R / nominal) at each steady record i of deployment d (its count unchanged over the last
    60 s); nominal: the median of R over the record and its neighbours, to a multiple of 5."""
    rate = [metric.get(d, 0.0) * pods[d] for metric, pods in rows]
    for i in range(2, len(rows) - 1):
        steady = rows[i][1][d] == rows[i - 1][1][d] == rows[i - 2][1][d]
        nominal = round(sorted(rate[i - 1:i + 2])[1] / 5) * 5
        if steady and nominal > 0 and rate[i] > 0:
            yield i, rate[i] / nominal


def noise_ratios(runs):
    return [r for rows in runs for d in DEPLOYMENTS for _, r in steady_ratios(busy_part(rows), d)]


def scale_events(runs):
    """{("up" | "down", k): [(R[i + k] / R[i - 1], old count / new count)]}."""
    out = defaultdict(list)
    for rows in runs:
        rows = busy_part(rows)
        for d in DEPLOYMENTS:
            rate = [metric.get(d, 0.0) * pods[d] for metric, pods in rows]
            n = [pods[d] for _, pods in rows]
            for i in range(2, len(rows) - 2):
                if n[i] == n[i - 1] or n[i - 1] != n[i - 2] or rate[i - 1] <= 0:
                    continue
                kind = "up" if n[i] > n[i - 1] else "down"
                for k in (0, 1, 2):
                    if n[i + k] != n[i]:
                        break
                    out[(kind, k)].append((rate[i + k] / rate[i - 1], n[i - 1] / n[i]))
    return out


def lag_correlation(runs):
    pairs = []
    for rows in runs:
        for d in DEPLOYMENTS:
            logs = {i: math.log(r) for i, r in steady_ratios(busy_part(rows), d)}
            pairs += [(logs[i], logs[i + 1]) for i in logs if i + 1 in logs]
    return statistics.correlation([a for a, _ in pairs], [b for _, b in pairs])


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 1
    gitdir, markdown = sys.argv[1], "--markdown" in sys.argv[2:]
    runs_of = newest_runs(gitdir)
    for sched, label in SCHEDULERS:
        all_runs = []
        if markdown:
            print(f"\n{label} ({sched}): mean / sd of the pod count, changes/min, reversals/min\n")
            print("| scenario | " + " | ".join(DEPLOYMENTS) + " |")
            print("|---" * (len(DEPLOYMENTS) + 1) + "|")
        for scen in SCENARIOS:
            if (sched, scen) not in runs_of:
                continue
            runs = [samples(json.loads(git(gitdir, "show", "HEAD:" + p)))
                    for p in runs_of[(sched, scen)]]
            all_runs += runs
            stats = count_stats(runs)
            mean, sd = map(float, scen.split("_"))
            cells = [f"{m:.2f} / {s:.2f}, {c:.2f}, {r:.2f} (genny {mean * COEF[d]:.2f} / "
                     f"{sd * COEF[d]:.2f})" for d, (m, s, c, r) in stats.items()]
            if markdown:
                print(f"| {scen} | " + " | ".join(cells) + " |")
            else:
                print(f"{label} {scen} ({len(runs)} runs): " + "; ".join(
                    f"{d} {c}" for d, c in zip(stats, cells)))
        ratios = sorted(noise_ratios(all_runs))
        logs = [math.log(r) for r in ratios]
        q = {p: ratios[min(len(ratios) - 1, int(p * len(ratios)))] for p in (0.05, 0.5, 0.95)}
        print(f"{'' if not markdown else chr(10)}{label}: steady-state measured/offered rate over "
              f"{len(ratios)} samples: sigma (sd of log) {statistics.pstdev(logs):.3f}, "
              f"q05 {q[0.05]:.2f}, median {q[0.5]:.2f}, q95 {q[0.95]:.2f}, within 10 %: "
              f"{sum(abs(r - 1) <= 0.1 for r in ratios) / len(ratios):.2f}, correlation 30 s "
              f"apart {lag_correlation(all_runs):.2f}")
        for (kind, k), v in sorted(scale_events(all_runs).items()):
            print(f"{label}: scale-{kind}, record +{k}: median R / R before "
                  f"{statistics.median(a for a, _ in v):.2f} over {len(v)} events (median old / new "
                  f"count {statistics.median(b for _, b in v):.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
