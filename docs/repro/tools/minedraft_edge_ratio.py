#!/usr/bin/env python3
"""Edge ratios of the KubeDSM authors' raw placement histories (AUT-Cloud-Lab/MineDraft), computed
with orrery's own pooled metric. Written for orrery (docs/repro/kubedsm.md, "The authors' raw
data"); it reads MineDraft's JSON histories and nothing else of that repository.

    python3 docs/repro/tools/minedraft_edge_ratio.py MINEDRAFT_GIT_DIR [--markdown]

MINEDRAFT_GIT_DIR is a git directory of MineDraft (a bare clone is enough: files are read with
`git show HEAD:path`). A history is a list of samples, one every 15 s, each naming the pods on every
node (pods not yet bound are listed under the node name "" and are not counted). Pods are attributed to a deployment by the pod-name prefix "<d>-deployment-"; pods of other
workloads (the scheduler's own pod) are ignored. Edge nodes are N2-N4 (their host names below).

Per run (one history):
  pooled      = mean over samples of (edge pods of A-D) / (pods of A-D)     (idle samples included)
  pooled_busy = the same over the samples from the first to the last one with more than one pod
                of some deployment (the idle head and tail, one pod per deployment, excluded)
  per_dep     = mean over deployments of (mean over samples of that deployment's edge share)
                (orrery's previous metric; 1 s sampling there, 15 s here)
Per scheduler and scenario: the mean over the runs of the newest dated directory that holds the
scenario (the set the authors' figures use), with the sample standard deviation over runs.
"""
import json
import statistics
import subprocess
import sys
from collections import defaultdict

EDGE = {"uq7g5w631-01", "uq7j5k991-01", "uq7p7x251-01"}  # N2, N3, N4
NODES = EDGE | {"uq7p7w241-01", "uq7g5t611-01"}  # + N5 (cloud) and N1 (master)
DEPLOYMENTS = ("a", "b", "c", "d")
SCHEDULERS = [  # MineDraft directory -> the paper's label
    ("ecmus-qos-aware", "KubeDSM"), ("kube-schedule", "K8S"), ("random-scheduler", "Random"),
    ("biggest-edge-first-scheduler", "BEF"), ("smallest-edge-first-scheduler", "SEF"),
    ("cloud-first-scheduler", "CF"), ("ecmus-mid-migration", "MidMig 2/1"),
    ("ecmus-no-cloud-offload", "NoCloudOffload 0/3"), ("ecmus-no-edge-migration", "NoEdgeMig 5/0"),
    ("ecmus-no-migration", "NoMigration 0/0"),
]
SCENARIOS = ["1.1_0.4", "1.2_0.4", "1.3_0.4", "1.4_0.4", "1.5_0.4", "1.6_0.4",
             "1.5_0.1", "1.5_0.2", "1.5_0.3", "1.5_0.5"]


def git(gitdir, *args):
    return subprocess.run(["git", "--git-dir", gitdir, *args], check=True,
                          capture_output=True, text=True).stdout


def run_metrics(history):
    samples = []  # per sample: {deployment: (edge, total)}
    for cycle in history:
        counts = {d: [0, 0] for d in DEPLOYMENTS}
        for node, pods in cycle["pod_placement"].items():
            if node not in NODES:  # "": pods not bound to a node yet
                continue
            for pod in pods:
                i = pod.find("-deployment")
                if i < 0 or pod[:i] not in counts:
                    continue
                counts[pod[:i]][1] += 1
                counts[pod[:i]][0] += node in EDGE
        samples.append(counts)
    def pooled(ss):
        vals = [sum(c[0] for c in s.values()) / sum(c[1] for c in s.values())
                for s in ss if sum(c[1] for c in s.values()) > 0]
        return statistics.mean(vals)
    busy = [i for i, s in enumerate(samples) if any(c[1] > 1 for c in s.values())]
    per_dep = statistics.mean(
        statistics.mean(s[d][0] / s[d][1] for s in samples if s[d][1] > 0) for d in DEPLOYMENTS)
    return {"pooled": pooled(samples),
            "pooled_busy": pooled(samples[busy[0]:busy[-1] + 1]) if busy else float("nan"),
            "per_dep": per_dep, "samples": len(samples),
            "idle_share": 1 - (busy[-1] - busy[0] + 1) / len(samples) if busy else 1.0}


def main():
    gitdir = sys.argv[1]
    files = git(gitdir, "ls-tree", "-r", "--name-only", "HEAD", "reports").split()
    runs = defaultdict(lambda: defaultdict(list))  # sched -> scenario -> date -> [paths]
    for f in files:
        parts = f.split("/")
        if len(parts) != 5 or not parts[3].startswith("normal_scenario_"):
            continue
        runs[parts[1]][parts[3][len("normal_scenario_"):]].append((parts[2], f))
    result = {}
    for sched, label in SCHEDULERS:
        for scen in SCENARIOS:
            entries = runs.get(sched, {}).get(scen)
            if not entries:
                continue
            newest = max(d for d, _ in entries)
            ms = [run_metrics(json.loads(git(gitdir, "show", "HEAD:" + f)))
                  for d, f in sorted(entries) if d == newest]
            agg = {"date": newest, "runs": len(ms)}
            for k in ("pooled", "pooled_busy", "per_dep", "idle_share", "samples"):
                v = [m[k] for m in ms]
                agg[k] = statistics.mean(v)
                agg[k + "_sd"] = statistics.stdev(v) if len(v) > 1 else 0.0
            agg["pooled_runs"] = [m["pooled"] for m in ms]
            result.setdefault(label, {})[scen] = agg
    if "--markdown" in sys.argv:
        for key in ("pooled", "pooled_busy", "per_dep"):
            print(f"\n{key} (%, mean ± sd over runs)\n")
            labels = [l for _, l in SCHEDULERS if l in result]
            print("| scenario | " + " | ".join(labels) + " |")
            print("|---" * (len(labels) + 1) + "|")
            for scen in SCENARIOS:
                row = []
                for l in labels:
                    a = result[l].get(scen)
                    row.append(f"{100 * a[key]:.1f} ± {100 * a[key + '_sd']:.1f}" if a else "—")
                print(f"| {scen} | " + " | ".join(row) + " |")
    else:
        json.dump(result, sys.stdout, indent=1, sort_keys=True)
        print()


if __name__ == "__main__":
    main()
