#!/usr/bin/env python3
"""Makes a gen_snapshot.py snapshot look like real `kubectl get nodes,pods -A -o json` output:
every pod gets ~6 KB (pretty-printed: ~8 KB) of managedFields, status conditions and container statuses, which the loader
ignores but must still read. Pretty-printed (indent 4), as kubectl prints it.

    python3 bench/gen_snapshot.py 5000 10000 100000 | python3 bench/fatten_snapshot.py > fat.json
"""
import json
import sys

snap = json.load(sys.stdin)
for item in snap["items"]:
    if item.get("kind") != "Pod":
        continue
    name = item["metadata"]["name"]
    item["metadata"]["managedFields"] = [{
        "apiVersion": "v1", "fieldsType": "FieldsV1", "manager": manager,
        "operation": "Update", "time": "2024-05-01T12:00:00Z",
        "fieldsV1": {f"f:field{i}": {"f:sub": {}, ".": {}} for i in range(12)},
    } for manager in ("kube-controller-manager", "kubelet", "kube-scheduler")]
    item["status"]["conditions"] = [
        {"type": t, "status": "True", "lastTransitionTime": "2024-05-01T12:00:00Z",
         "lastProbeTime": None} for t in ("Initialized", "Ready", "ContainersReady", "PodScheduled")]
    item["status"]["containerStatuses"] = [{
        "name": "main", "image": "registry.example.com/app:1.0", "ready": True,
        "restartCount": 0, "containerID": "containerd://" + "0" * 64,
        "state": {"running": {"startedAt": "2024-05-01T12:00:00Z"}}, "message": f"pod {name} \"ok\""}]
json.dump(snap, sys.stdout, indent=4)
sys.stdout.write("\n")
