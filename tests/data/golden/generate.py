#!/usr/bin/env python3
"""Generates golden-cluster.json: a 50-node / 500-pod snapshot in `kubectl get nodes,pods -A -o json`
shape for the golden scheduling test (tests/plugins/golden_test.cc, tests/cli/schedule_cli_test.cc).

Deterministic (own xorshift generator, no Python `random`), so re-running it reproduces the file:
    python3 tests/data/golden/generate.py > tests/data/golden/golden-cluster.json
After changing it, regenerate the expected placements with
    build/release/orrery schedule --cluster tests/data/golden/golden-cluster.json \
        --config tests/data/golden/golden-config.yaml --out tests/data/golden/expected.json
and review the diff: the golden test also re-verifies every placement against a brute-force
recomputation of the default profile's filters and scores.
"""
import json

state = 0x9E3779B97F4A7C15


def rnd():
    global state
    state ^= (state << 13) & 0xFFFFFFFFFFFFFFFF
    state ^= state >> 7
    state ^= (state << 17) & 0xFFFFFFFFFFFFFFFF
    return state


def below(n):
    return rnd() % n


def chance(p):
    return below(1000) < int(p * 1000)


SIZES = [("2", "8Gi"), ("4", "16Gi"), ("8", "32Gi"), ("16", "64Gi"), ("32", "128Gi")]
ZONES = ["z-a", "z-b", "z-c"]

items = []
nodes = []
for i in range(50):
    name = "node-%02d" % i
    cpu, mem = SIZES[below(len(SIZES))]
    labels = {
        "kubernetes.io/hostname": name,
        "topology.kubernetes.io/zone": ZONES[i % 3],
        "disk": "ssd" if chance(0.5) else "hdd",
    }
    taints = []
    alloc = {"cpu": cpu, "memory": mem, "pods": "110"}
    if i % 10 == 7:  # GPU nodes
        alloc["nvidia.com/gpu"] = "4"
        labels["accelerator"] = "gpu"
        taints.append({"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"})
    if i % 9 == 4:  # spot nodes: soft taint
        taints.append({"key": "spot", "value": "true", "effect": "PreferNoSchedule"})
    if i % 8 == 5:  # small pod limit
        alloc["pods"] = "8"
    spec = {"taints": taints} if taints else {}
    if i in (13, 31):
        spec["unschedulable"] = True
    nodes.append((name, int(cpu) * 1000))
    items.append({"apiVersion": "v1", "kind": "Node",
                  "metadata": {"name": name, "labels": labels},
                  "spec": spec,
                  "status": {"allocatable": alloc}})

t0 = 1714564800  # 2024-05-01T12:00:00Z


def ts(k):
    h, rem = divmod(k, 3600)
    m, s = divmod(rem, 60)
    return "2024-05-01T%02d:%02d:%02dZ" % (12 + h, m, s)


def pod(name, ns, reqs, *, node=None, priority=None, labels=None, owner=None, tolerations=None,
        selector=None, affinity=None, spread=None, created=0, preempt_never=False):
    containers = []
    for j, r in enumerate(reqs):
        c = {"name": "c%d" % j}
        if r:
            c["resources"] = {"requests": r}
        containers.append(c)
    meta = {"name": name, "namespace": ns, "creationTimestamp": ts(created)}
    if labels:
        meta["labels"] = labels
    if owner:
        meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": owner,
                                    "controller": True}]
    spec = {"containers": containers}
    if node:
        spec["nodeName"] = node
    if priority is not None:
        spec["priority"] = priority
    if preempt_never:
        spec["preemptionPolicy"] = "Never"
    if tolerations:
        spec["tolerations"] = tolerations
    if selector:
        spec["nodeSelector"] = selector
    if affinity:
        spec["affinity"] = affinity
    if spread:
        spec["topologySpreadConstraints"] = spread
    items.append({"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec,
                  "status": {"phase": "Running" if node else "Pending"}})


# 150 running pods: batch work (priority 0 and 100) on the larger nodes, some replicas.
k = 0
for i in range(150):
    name, cpu = nodes[below(50)]
    if name in ("node-13", "node-31"):
        name = "node-00"
    cpu_req = "%dm" % (250 * (1 + below(12)))
    mem_req = "%dMi" % (256 * (1 + below(12)))
    owner = "batch-%d" % below(5) if chance(0.5) else None
    pod("running-%03d" % i, ["default", "batch", "web"][i % 3], [{"cpu": cpu_req, "memory": mem_req}],
        node=name, priority=[0, 0, 100][below(3)], owner=owner, labels={"app": owner or "solo"},
        created=k)
    k += 1

# 350 pending pods.
GPU_TOL = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
SPOT_TOL = [{"key": "spot", "operator": "Equal", "value": "true", "effect": "PreferNoSchedule"}]
for i in range(350):
    kind = below(10)
    name = "pending-%03d" % i
    ns = ["default", "batch", "web"][below(3)]
    created = 1000 + i
    if kind <= 3:  # web replicas: owned, spread by the system defaults
        d = "web-%d" % below(6)
        pod(name, ns, [{"cpu": "250m", "memory": "256Mi"}], owner=d, labels={"app": d},
            created=created, priority=[0, 100][below(2)])
    elif kind == 4:  # best effort
        pod(name, ns, [{}], created=created)
    elif kind == 5:  # ssd-only, preferring zone z-b
        pod(name, ns, [{"cpu": "%dm" % (500 * (1 + below(4))), "memory": "1Gi"}],
            selector={"disk": "ssd"}, created=created,
            affinity={"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 50, "preference": {"matchExpressions": [
                    {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["z-b"]}]}}]}})
    elif kind == 6:  # GPU jobs
        pod(name, ns, [{"cpu": "2", "memory": "8Gi", "nvidia.com/gpu": "1"}],
            tolerations=GPU_TOL, created=created, priority=100)
    elif kind == 7:  # big, high-priority services: preempt batch work when needed
        pod(name, ns, [{"cpu": "%d" % (2 + below(6)), "memory": "%dGi" % (2 + below(8))}],
            priority=1000, created=created, tolerations=SPOT_TOL,
            affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [
                    {"key": "topology.kubernetes.io/zone", "operator": "NotIn", "values": ["z-c"]}]}]}}})
    elif kind == 8:  # sidecar-style two-container pods
        pod(name, ns, [{"cpu": "300m", "memory": "300Mi"}, {"cpu": "50m"}], created=created,
            priority=[0, 100][below(2)], preempt_never=chance(0.3))
    else:  # too big for any node, or fits only the largest
        pod(name, ns, [{"cpu": "%d" % [24, 40][below(2)], "memory": "16Gi"}], created=created)

print(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, separators=(",", ":"))
      .replace(',{"apiVersion"', ',\n{"apiVersion"'))
