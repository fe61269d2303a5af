#!/usr/bin/env python3
"""Generates a bench-sized cluster snapshot in `kubectl get nodes,pods -A -o json` shape, the
cluster of bench/schedule_bench.cc as a file for `orrery schedule`:

    python3 bench/gen_snapshot.py [NODES [PENDING [RUNNING]]] > big.json   # 5000 10000 20000

10 zones, six machine sizes (4-96 cores), 5 % GPU nodes (NoSchedule taint), 5 % spot nodes
(PreferNoSchedule taint), a few cordoned nodes, half the nodes with SSDs; running pods of several
priorities; pending pods: 60 % Deployment replicas (system default spreading), standalone pods,
nodeSelector, preferred and required node affinity, GPU pods with a toleration, best-effort pods,
explicit topology spread constraints and high-priority pods that preempt.

Deterministic (own xorshift generator, no Python `random`). Used by bench/compare_outputs.sh.
"""
import json
import sys

state = 0x2545F4914F6CDD1D


def rnd():
    global state
    state ^= (state << 13) & 0xFFFFFFFFFFFFFFFF
    state ^= state >> 7
    state ^= (state << 17) & 0xFFFFFFFFFFFFFFFF
    return state


def below(n):
    return rnd() % n


num_nodes = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
num_pending = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
num_running = int(sys.argv[3]) if len(sys.argv) > 3 else 20000

CORES = [4, 8, 16, 32, 64, 96]
items = []
nodes = []
for i in range(num_nodes):
    name = "node-%05d" % i
    cores = CORES[below(6)]
    labels = {
        "kubernetes.io/hostname": name,
        "topology.kubernetes.io/zone": "zone-%d" % (i % 10),
        "disk": "ssd" if below(2) else "hdd",
    }
    alloc = {"cpu": str(cores), "memory": "%dGi" % (cores * 4), "pods": "110"}
    taints = []
    if i % 20 == 3:
        alloc["nvidia.com/gpu"] = "8"
        taints.append({"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"})
    elif i % 20 == 11:
        taints.append({"key": "spot", "value": "true", "effect": "PreferNoSchedule"})
    spec = {"taints": taints} if taints else {}
    if i % 997 == 5:
        spec["unschedulable"] = True
    nodes.append(name)
    items.append({"apiVersion": "v1", "kind": "Node",
                  "metadata": {"name": name, "labels": labels},
                  "spec": spec, "status": {"allocatable": alloc, "capacity": alloc}})


def ts(k):
    h, rem = divmod(k, 3600)
    m, s = divmod(rem, 60)
    return "2024-05-01T%02d:%02d:%02dZ" % (h % 24, m, s)


def pod(name, reqs, *, node=None, priority=None, labels=None, owner=None, tolerations=None,
        selector=None, affinity=None, spread=None, created=0):
    c = {"name": "c"}
    if reqs:
        c["resources"] = {"requests": reqs}
    meta = {"name": name, "namespace": "bench", "creationTimestamp": ts(created)}
    if labels:
        meta["labels"] = labels
    if owner:
        meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": owner,
                                    "controller": True}]
    spec = {"containers": [c]}
    for key, value in (("nodeName", node), ("priority", priority), ("tolerations", tolerations),
                       ("nodeSelector", selector), ("affinity", affinity),
                       ("topologySpreadConstraints", spread)):
        if value is not None:
            spec[key] = value
    items.append({"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec,
                  "status": {"phase": "Running" if node else "Pending"}})


def reqs():
    return {"cpu": "%dm" % (100 * (1 + below(20))), "memory": "%dMi" % (128 * (1 + below(32)))}


GPU_TOL = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
for i in range(num_running):
    node = nodes[below(num_nodes)]
    if node in ("node-00005",):
        node = "node-00000"
    owner = "batch-%d" % below(50) if below(2) else None
    pod("running-%06d" % i, reqs(), node=node, priority=[0, 0, 100][below(3)], owner=owner,
        labels={"app": owner or "solo"}, created=i)

deployment, owner = None, None
for i in range(num_pending):
    kind = below(20)
    created = num_running + i
    name = "pending-%06d" % i
    if kind < 12:
        if i % 20 == 0 or deployment is None:
            deployment = reqs()
            owner = "deploy-%d" % (i // 20)
        pod(name, deployment, owner=owner, labels={"app": owner}, created=created)
    elif kind == 12:
        pod(name, None, created=created)  # best effort
    elif kind == 13:
        pod(name, reqs(), created=created, labels={"app": "spread"},
            spread=[{"maxSkew": 2, "topologyKey": "topology.kubernetes.io/zone",
                     "whenUnsatisfiable": "DoNotSchedule",
                     "labelSelector": {"matchLabels": {"app": "spread"}}}])
    elif kind in (14, 15):
        pod(name, reqs(), created=created, selector={"disk": "ssd"})
    elif kind == 16:
        pod(name, reqs(), created=created, affinity={"nodeAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 10, "preference": {"matchExpressions": [
                    {"key": "topology.kubernetes.io/zone", "operator": "In",
                     "values": ["zone-3"]}]}}]}})
    elif kind == 17:
        pod(name, reqs(), created=created, affinity={"nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "NotIn",
                                       "values": ["zone-1", "zone-2"]}]}]}}})
    elif kind == 18:
        r = reqs()
        r["nvidia.com/gpu"] = "1"
        pod(name, r, created=created, tolerations=GPU_TOL, priority=100)
    else:  # big and important: preempts when nothing fits
        pod(name, {"cpu": str(8 + below(40)), "memory": "%dGi" % (8 + below(64))},
            created=created, priority=1000)

print(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, separators=(",", ":"))
      .replace(',{"apiVersion"', ',\n{"apiVersion"'))
