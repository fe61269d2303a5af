// Decoding one watch event's Pod into the model, as `orrery serve`'s informers do for every
// ADDED/MODIFIED event: a realistic Pod as `kubectl get pod -o json` prints it (metadata with
// labels, annotations, ownerReferences and managedFields; a spec with two containers, resources,
// affinity, tolerations, topologySpreadConstraints and volumes; a status).
//   BM_DecodePod          the parsed JSON (nlohmann) → Pod (k8s::pod_from_json)
//   BM_DecodePodFromLine  the watch line's text → JSON → Pod (what one event costs in all)
// docs/PERFORMANCE.md ("Watch-event decoding") has the numbers.
#include <benchmark/benchmark.h>

#include <nlohmann/json.hpp>
#include <string>

#include "k8s/objects.h"

namespace {

using namespace orrery;

const char* const kPodJson = R"json({
  "apiVersion": "v1",
  "kind": "Pod",
  "metadata": {
    "annotations": {
      "kubectl.kubernetes.io/restartedAt": "2026-11-20T09:12:44Z",
      "prometheus.io/port": "9102",
      "prometheus.io/scrape": "true"
    },
    "creationTimestamp": "2026-11-27T14:03:51Z",
    "generateName": "checkout-7d9c8b6f5-",
    "labels": {
      "app.kubernetes.io/component": "api",
      "app.kubernetes.io/name": "checkout",
      "app.kubernetes.io/part-of": "shop",
      "pod-template-hash": "7d9c8b6f5",
      "tier": "backend"
    },
    "managedFields": [
      {
        "apiVersion": "v1",
        "fieldsType": "FieldsV1",
        "fieldsV1": {
          "f:metadata": {"f:generateName": {}, "f:labels": {".": {}, "f:app.kubernetes.io/name": {}, "f:pod-template-hash": {}},
                         "f:ownerReferences": {".": {}, "k:{\"uid\":\"0b3c2a55-4d0e-4a8e-9d43-6f1c2b7e9a10\"}": {}}},
          "f:spec": {"f:affinity": {".": {}, "f:podAntiAffinity": {}}, "f:containers": {"k:{\"name\":\"app\"}": {".": {}, "f:image": {}, "f:resources": {}}},
                     "f:tolerations": {}, "f:topologySpreadConstraints": {}, "f:volumes": {}}
        },
        "manager": "kube-controller-manager",
        "operation": "Update",
        "time": "2026-11-27T14:03:51Z"
      },
      {
        "apiVersion": "v1",
        "fieldsType": "FieldsV1",
        "fieldsV1": {"f:status": {"f:conditions": {}, "f:containerStatuses": {}, "f:hostIP": {}, "f:phase": {}, "f:podIP": {}, "f:startTime": {}}},
        "manager": "kubelet",
        "operation": "Update",
        "subresource": "status",
        "time": "2026-11-27T14:04:09Z"
      }
    ],
    "name": "checkout-7d9c8b6f5-x2kqp",
    "namespace": "shop",
    "ownerReferences": [
      {
        "apiVersion": "apps/v1",
        "blockOwnerDeletion": true,
        "controller": true,
        "kind": "ReplicaSet",
        "name": "checkout-7d9c8b6f5",
        "uid": "0b3c2a55-4d0e-4a8e-9d43-6f1c2b7e9a10"
      }
    ],
    "resourceVersion": "48213377",
    "uid": "9f1e0d7c-3b2a-4c5d-8e6f-a1b2c3d4e5f6"
  },
  "spec": {
    "affinity": {
      "nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {
          "nodeSelectorTerms": [
            {"matchExpressions": [{"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64", "arm64"]},
                                  {"key": "node.kubernetes.io/instance-type", "operator": "NotIn", "values": ["t3.micro"]}]}
          ]
        },
        "preferredDuringSchedulingIgnoredDuringExecution": [
          {"weight": 50, "preference": {"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["eu-west-1a"]}]}}
        ]
      },
      "podAntiAffinity": {
        "preferredDuringSchedulingIgnoredDuringExecution": [
          {"podAffinityTerm": {"labelSelector": {"matchLabels": {"app.kubernetes.io/name": "checkout"}},
                               "topologyKey": "kubernetes.io/hostname"},
           "weight": 100}
        ]
      }
    },
    "containers": [
      {
        "args": ["--port=8080", "--log-level=info"],
        "env": [{"name": "GOMAXPROCS", "value": "2"}, {"name": "POD_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}}],
        "image": "registry.example.com/shop/checkout:1.42.3",
        "imagePullPolicy": "IfNotPresent",
        "livenessProbe": {"failureThreshold": 3, "httpGet": {"path": "/healthz", "port": 8080, "scheme": "HTTP"}, "periodSeconds": 10, "successThreshold": 1, "timeoutSeconds": 1},
        "name": "app",
        "ports": [{"containerPort": 8080, "name": "http", "protocol": "TCP"}],
        "readinessProbe": {"failureThreshold": 3, "httpGet": {"path": "/ready", "port": 8080, "scheme": "HTTP"}, "periodSeconds": 5, "successThreshold": 1, "timeoutSeconds": 1},
        "resources": {"limits": {"cpu": "2", "memory": "1Gi"}, "requests": {"cpu": "500m", "memory": "512Mi"}},
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File",
        "volumeMounts": [{"mountPath": "/etc/checkout", "name": "config", "readOnly": true},
                         {"mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "name": "kube-api-access-8xk2d", "readOnly": true}]
      },
      {
        "args": ["--config=/etc/envoy/envoy.yaml"],
        "image": "envoyproxy/envoy:v1.31.2",
        "imagePullPolicy": "IfNotPresent",
        "name": "envoy",
        "ports": [{"containerPort": 9901, "name": "admin", "protocol": "TCP"}],
        "resources": {"limits": {"memory": "256Mi"}, "requests": {"cpu": "100m", "memory": "128Mi"}},
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File",
        "volumeMounts": [{"mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "name": "kube-api-access-8xk2d", "readOnly": true}]
      }
    ],
    "dnsPolicy": "ClusterFirst",
    "enableServiceLinks": true,
    "nodeName": "ip-10-0-12-34.eu-west-1.compute.internal",
    "preemptionPolicy": "PreemptLowerPriority",
    "priority": 1000,
    "priorityClassName": "shop-standard",
    "restartPolicy": "Always",
    "schedulerName": "default-scheduler",
    "securityContext": {"fsGroup": 2000, "runAsNonRoot": true},
    "serviceAccount": "checkout",
    "serviceAccountName": "checkout",
    "terminationGracePeriodSeconds": 30,
    "tolerations": [
      {"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists", "tolerationSeconds": 300},
      {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "operator": "Exists", "tolerationSeconds": 300},
      {"effect": "NoSchedule", "key": "dedicated", "operator": "Equal", "value": "shop"}
    ],
    "topologySpreadConstraints": [
      {"labelSelector": {"matchLabels": {"app.kubernetes.io/name": "checkout"}}, "matchLabelKeys": ["pod-template-hash"],
       "maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "ScheduleAnyway"},
      {"labelSelector": {"matchExpressions": [{"key": "tier", "operator": "In", "values": ["backend"]}]},
       "maxSkew": 2, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "DoNotSchedule"}
    ],
    "volumes": [
      {"configMap": {"defaultMode": 420, "name": "checkout-config"}, "name": "config"},
      {"name": "kube-api-access-8xk2d",
       "projected": {"defaultMode": 420, "sources": [{"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
                                                      {"configMap": {"items": [{"key": "ca.crt", "path": "ca.crt"}], "name": "kube-root-ca.crt"}},
                                                      {"downwardAPI": {"items": [{"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}, "path": "namespace"}]}}]}}
    ]
  },
  "status": {
    "conditions": [
      {"lastProbeTime": null, "lastTransitionTime": "2026-11-27T14:03:51Z", "status": "True", "type": "PodScheduled"},
      {"lastProbeTime": null, "lastTransitionTime": "2026-11-27T14:04:02Z", "status": "True", "type": "Initialized"},
      {"lastProbeTime": null, "lastTransitionTime": "2026-11-27T14:04:09Z", "status": "True", "type": "ContainersReady"},
      {"lastProbeTime": null, "lastTransitionTime": "2026-11-27T14:04:09Z", "status": "True", "type": "Ready"}
    ],
    "containerStatuses": [
      {"containerID": "containerd://4b1f0c", "image": "registry.example.com/shop/checkout:1.42.3", "imageID": "registry.example.com/shop/checkout@sha256:0a1b", "lastState": {},
       "name": "app", "ready": true, "restartCount": 0, "started": true, "state": {"running": {"startedAt": "2026-11-27T14:04:03Z"}}},
      {"containerID": "containerd://9e8d7c", "image": "docker.io/envoyproxy/envoy:v1.31.2", "imageID": "docker.io/envoyproxy/envoy@sha256:3c4d", "lastState": {},
       "name": "envoy", "ready": true, "restartCount": 0, "started": true, "state": {"running": {"startedAt": "2026-11-27T14:04:04Z"}}}
    ],
    "hostIP": "10.0.12.34",
    "phase": "Running",
    "podIP": "10.0.44.17",
    "podIPs": [{"ip": "10.0.44.17"}],
    "qosClass": "Burstable",
    "startTime": "2026-11-27T14:03:51Z"
  }
})json";

k8s::PriorityClasses classes() {
  k8s::PriorityClasses pcs;
  pcs.by_name["shop-standard"] = PriorityClass{"shop-standard", 1000, false, false};
  return pcs;
}

void BM_DecodePod(benchmark::State& state) {
  const k8s::JsonValue obj = k8s::JsonValue::parse(kPodJson);
  const k8s::PriorityClasses pcs = classes();
  for (auto _ : state) {
    Pod p = k8s::pod_from_json(obj, pcs);
    benchmark::DoNotOptimize(p);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_DecodePod)->Unit(benchmark::kMicrosecond);

void BM_DecodePodFromLine(benchmark::State& state) {
  const std::string line =
      k8s::JsonValue{{"type", "MODIFIED"}, {"object", k8s::JsonValue::parse(kPodJson)}}.dump();
  const k8s::PriorityClasses pcs = classes();
  for (auto _ : state) {
    const k8s::JsonValue ev = k8s::JsonValue::parse(line);
    Pod p = k8s::pod_from_json(ev["object"], pcs);
    benchmark::DoNotOptimize(p);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_DecodePodFromLine)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
