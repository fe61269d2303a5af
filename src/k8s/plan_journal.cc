#include "k8s/plan_journal.h"

#include "core/error.h"
#include "obs/log.h"

namespace orrery::k8s {

std::string journal_key(const std::string& ns, const std::string& name) {
  return ns + "." + name;
}

std::string journal_value(const JournalEntry& e) {
  return JsonValue{{"oldUid", e.old_uid}, {"pod", e.pod}}.dump();
}

JournalEntry parse_journal_entry(const std::string& key, const std::string& value) {
  const std::string where = "plan journal key \"" + key + "\"";
  const size_t dot = key.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == key.size())
    throw InputError(where + ": expected <namespace>.<pod name>");
  JournalEntry e{key.substr(0, dot), key.substr(dot + 1), "", {}};
  const JsonValue v = JsonValue::parse(value, nullptr, false);
  if (!v.is_object() || !v.contains("oldUid") || !v["oldUid"].is_string())
    throw InputError(where + ": expected a JSON object with a string oldUid");
  if (!v.contains("pod") || !v["pod"].is_object() || !v["pod"].contains("metadata") ||
      !v["pod"]["metadata"].is_object())
    throw InputError(where + ": pod: expected a Pod object with metadata");
  const JsonValue& meta = v["pod"]["metadata"];
  if (meta.value("name", "") != e.name || meta.value("namespace", e.ns) != e.ns)
    throw InputError(where + ": pod.metadata: expected the name and namespace of the key");
  e.old_uid = v["oldUid"].get<std::string>();
  e.pod = v["pod"];
  return e;
}

std::string_view to_string(ReplayAction a) {
  switch (a) {
    case ReplayAction::kCancel: return "cancel";
    case ReplayAction::kAwaitDeletion: return "await-deletion";
    case ReplayAction::kCreate: return "create";
    case ReplayAction::kDrop: return "drop";
  }
  return "?";
}

ReplayAction decide_replay(const JournalEntry& entry, const std::optional<ObservedPod>& pod) {
  if (!pod) return ReplayAction::kCreate;
  if (pod->uid != entry.old_uid) return ReplayAction::kDrop;
  return pod->terminating ? ReplayAction::kAwaitDeletion : ReplayAction::kCancel;
}

PlanJournal::PlanJournal(ApiClient& client, std::string ns, std::string name, int attempts)
    : client_(client), ns_(std::move(ns)), name_(std::move(name)), attempts_(attempts) {}

std::string PlanJournal::path(bool with_name) const {
  std::string p = "/api/v1/namespaces/" + ns_ + "/configmaps";
  if (with_name) p += "/" + name_;
  return p;
}

Response PlanJournal::mutate(const std::function<bool(JsonValue& data)>& change) {
  Response last;
  for (int attempt = 0; attempt < attempts_; ++attempt) {
    Response got = client_.get(ApiCall::kGetConfigMap, path(true));
    if (got.status == 404) {
      JsonValue data = JsonValue::object();
      if (!change(data)) return {200, "", ""};
      const JsonValue cm = {
          {"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata",
           {{"name", name_},
            {"namespace", ns_},
            {"labels",
             {{"app.kubernetes.io/name", "orrery"}, {"orrery.io/role", "plan-journal"}}}}},
          {"data", data}};
      last = client_.post(ApiCall::kCreateConfigMap, path(false), cm.dump());
      if (last.status == 409) continue;  // created meanwhile: read it
      return last;
    }
    if (!got.ok()) return got;
    JsonValue cm = JsonValue::parse(got.body, nullptr, false);
    if (!cm.is_object() || !cm.contains("metadata"))
      return {0, got.body, "malformed ConfigMap " + ns_ + "/" + name_};
    if (!cm.contains("data") || !cm["data"].is_object()) cm["data"] = JsonValue::object();
    if (!change(cm["data"])) return got;
    last = client_.put(ApiCall::kUpdateConfigMap, path(true), cm.dump());
    if (last.status != 409) return last;
    obs::debug("plan journal update conflict; reading it again",
               {{"configmap", ns_ + "/" + name_}, {"attempt", std::to_string(attempt + 1)}});
  }
  return last;
}

Response PlanJournal::record(const JournalEntry& e) {
  const std::string key = journal_key(e.ns, e.name), value = journal_value(e);
  return mutate([&](JsonValue& data) {
    if (data.value(key, "") == value) return false;
    data[key] = value;
    return true;
  });
}

Response PlanJournal::erase(const std::string& ns, const std::string& name) {
  const std::string key = journal_key(ns, name);
  return mutate([&](JsonValue& data) { return data.erase(key) > 0; });
}

Response PlanJournal::load(std::vector<JournalEntry>* out) {
  out->clear();
  Response got = client_.get(ApiCall::kGetConfigMap, path(true));
  if (got.status == 404) return {200, "", ""};
  if (!got.ok()) return got;
  const JsonValue cm = JsonValue::parse(got.body, nullptr, false);
  if (!cm.is_object()) return {0, got.body, "malformed ConfigMap " + ns_ + "/" + name_};
  const JsonValue data = cm.value("data", JsonValue::object());
  if (!data.is_object()) return got;
  for (const auto& [key, value] : data.items()) {
    try {
      if (!value.is_string())
        throw InputError("plan journal key \"" + key + "\": expected a string");
      out->push_back(parse_journal_entry(key, value.get<std::string>()));
    } catch (const InputError& err) {
      obs::warn("skipping a malformed plan journal entry",
                {{"configmap", ns_ + "/" + name_}, {"error", err.what()}});
    }
  }
  return got;
}

}  // namespace orrery::k8s
