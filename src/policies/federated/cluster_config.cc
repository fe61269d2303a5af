#include "policies/federated/cluster_config.h"

#include <cmath>
#include <limits>

#include "core/error.h"
#include "io/k8s_objects.h"
#include "io/yaml_util.h"

namespace orrery::federated {

std::string_view arch_name(Arch a) {
  return a == Arch::kMegha ? "megha" : "pigeonc";
}

namespace {

// Shape shared by every group: K strings of `width` bits; the first group read sets it.
struct Shape {
  size_t k = 0;
  size_t width = 0;
  std::string first;  // field path of the group that fixed the shape
};

std::vector<std::string> read_group(const yaml::Ctx& list, Shape& shape) {
  list.expect_seq();
  const size_t n = list.size();
  if (n == 0) list.fail("expected one constraint bit string per constraint id, got an empty list");
  if (n > kMaxConstraints) {
    list.fail("expected at most " + std::to_string(kMaxConstraints) +
              " constraint bit strings, got " + std::to_string(n));
  }
  if (shape.k == 0) {
    shape.k = n;
    shape.first = list.path;
  } else if (n != shape.k) {
    list.fail("expected " + std::to_string(shape.k) +
              " constraint bit strings (one per constraint id, as in " + shape.first + "), got " +
              std::to_string(n));
  }
  std::vector<std::string> out;
  out.reserve(n);
  for (size_t k = 0; k < n; ++k) {
    yaml::Ctx item = list.item(k);
    std::string s = item.str();
    std::string_view bits = s;
    if (bits.starts_with("0b") || bits.starts_with("0B")) bits.remove_prefix(2);
    if (bits.empty()) item.fail("expected a bit string like \"0b0110...\", got \"" + s + "\"");
    for (char c : bits)
      if (c != '0' && c != '1') {
        item.fail("expected a bit string of 0s and 1s like \"0b0110...\", got \"" +
                  (s.size() > 40 ? s.substr(0, 40) + "..." : s) + "\"");
      }
    if (shape.width == 0) {
      shape.width = bits.size();
    } else if (bits.size() != shape.width) {
      item.fail("bit string has " + std::to_string(bits.size()) + " bits, expected " +
                std::to_string(shape.width) + " like " + shape.first +
                "[0]: every partition/cluster must have the same number of workers");
    }
    out.emplace_back(bits);
  }
  return out;
}

void fill_group(WorkerGroups& g, uint32_t group, const std::vector<std::string>& strings) {
  for (uint32_t k = 0; k < strings.size(); ++k) {
    const std::string& s = strings[k];
    for (uint32_t i = 0; i < s.size(); ++i)
      if (s[i] == '1') g.set(group, k, i);
  }
}

ClusterConfig parse_megha(const yaml::Ctx& root) {
  ClusterConfig c;
  c.arch = Arch::kMegha;
  yaml::Ctx lms = root.child("LMs");
  lms.expect_map();
  const std::vector<std::string> lm_ids = lms.keys();
  if (lm_ids.empty()) lms.fail("expected at least one LM");
  std::vector<std::string> gm_ids;
  Shape shape;
  std::vector<std::vector<std::string>> strings;  // [lm * gms + gm]
  for (const std::string& lm : lm_ids) {
    yaml::Ctx parts = lms.child(lm).child("partitions");
    if (!parts.defined()) parts.fail("missing: every LM needs \"partitions\": {<GM id>: [...]}");
    parts.expect_map();
    std::vector<std::string> ids = parts.keys();
    if (gm_ids.empty()) {
      gm_ids = ids;
      if (gm_ids.empty()) parts.fail("expected one partition per GM, got none");
    } else {
      bool same = ids.size() == gm_ids.size();
      for (const std::string& id : gm_ids) same = same && parts.has(id);
      if (!same) {
        std::string want, got;
        for (const auto& s : gm_ids) want += (want.empty() ? "" : ",") + s;
        for (const auto& s : ids) got += (got.empty() ? "" : ",") + s;
        parts.fail("expected one partition per GM with the same GM ids as LM " + lm_ids[0] + " (" +
                   want + "), got " + got);
      }
    }
    for (const std::string& gm : gm_ids) {
      strings.push_back(read_group(parts.child(gm), shape));
      c.group_names.push_back("LM " + lm + " partition " + gm);
    }
  }
  c.num_lms = static_cast<uint32_t>(lm_ids.size());
  c.num_gms = static_cast<uint32_t>(gm_ids.size());
  c.groups = WorkerGroups(c.num_lms * c.num_gms, static_cast<uint32_t>(shape.width),
                          static_cast<uint32_t>(shape.k));
  for (uint32_t g = 0; g < strings.size(); ++g) fill_group(c.groups, g, strings[g]);
  c.groups.finalize();
  return c;
}

int64_t positive_int(const yaml::Ctx& root, const std::string& key) {
  yaml::Ctx f = root.child(key);
  if (!f.defined()) f.fail("missing: expected a positive integer");
  const double v = f.f64();  // the published configs write some counts as 10000 or 2.0
  if (v < 1 || v != std::floor(v)) f.fail("expected a positive integer, got " + f.str());
  // Counts are 32-bit (a larger value would not convert: 1e25, or 2^32 masters becoming 0).
  if (v > std::numeric_limits<uint32_t>::max())
    f.fail("expected a positive integer of at most 4294967295, got " + f.str());
  return static_cast<int64_t>(v);
}

ClusterConfig parse_pigeon(const yaml::Ctx& root) {
  ClusterConfig c;
  c.arch = Arch::kPigeonC;
  c.num_distributors = static_cast<uint32_t>(positive_int(root, "num_distributors"));
  c.num_masters = static_cast<uint32_t>(positive_int(root, "num_masters"));
  const int64_t workers = positive_int(root, "num_workers");
  if (workers % c.num_masters != 0) {
    root.child("num_workers")
        .fail("expected a multiple of num_masters (" + std::to_string(c.num_masters) +
              "): every Master manages the same number of workers");
  }
  yaml::Ctx fqw = root.child("FQW");
  c.fqw = fqw.defined() ? fqw.f64() : 20.0;
  if (c.fqw < 1) fqw.fail("expected a fair-queue weight >= 1, got " + fqw.str());
  yaml::Ctx cutoff = root.child("cutoff");
  if (!cutoff.defined()) cutoff.fail("missing: expected the short-job cutoff in seconds");
  c.cutoff_s = cutoff.f64();
  if (c.cutoff_s < 0) cutoff.fail("expected a cutoff >= 0 seconds, got " + cutoff.str());
  yaml::Ctx reserve = root.child("reserve");
  if (reserve.defined() && reserve.f64() != 0) {
    reserve.fail("PigeonC does not reserve workers for short jobs (paper §4.2); expected 0, got " +
                 reserve.str());
  }
  yaml::Ctx ws = root.child("workers");
  ws.expect_map();
  const std::vector<std::string> ids = ws.keys();
  if (ids.size() != c.num_masters) {
    ws.fail("expected one entry per Master (num_masters = " + std::to_string(c.num_masters) +
            "), got " + std::to_string(ids.size()));
  }
  Shape shape;
  std::vector<std::vector<std::string>> strings;
  for (const std::string& m : ids) {
    strings.push_back(read_group(ws.child(m), shape));
    c.group_names.push_back("master " + m);
  }
  const auto per_master = static_cast<size_t>(workers / c.num_masters);
  if (shape.width != per_master) {
    ws.child(ids[0]).item(0).fail("bit string has " + std::to_string(shape.width) +
                                  " bits, expected " + std::to_string(per_master) +
                                  " (num_workers / num_masters = " + std::to_string(workers) +
                                  " / " + std::to_string(c.num_masters) + ")");
  }
  c.groups = WorkerGroups(c.num_masters, static_cast<uint32_t>(shape.width),
                          static_cast<uint32_t>(shape.k));
  for (uint32_t g = 0; g < strings.size(); ++g) fill_group(c.groups, g, strings[g]);
  c.groups.finalize();
  return c;
}

}  // namespace

ClusterConfig parse_cluster_config(const std::string& text, const std::string& source,
                                   std::optional<Arch> expect) {
  yaml::Ctx root{source, yaml::parse_document(text, source), "", 1};
  root.expect_map();
  std::optional<Arch> found;
  if (root.has("LMs")) found = Arch::kMegha;
  if (root.has("workers") || root.has("num_masters")) {
    if (found) root.fail("has both \"LMs\" (Megha) and \"workers\" (PigeonC); expected one");
    found = Arch::kPigeonC;
  }
  if (!found) {
    root.fail(
        "expected a Megha configuration (\"LMs\": {...}) or a PigeonC configuration "
        "(\"num_masters\", \"workers\": {...})");
  }
  if (expect && *expect != *found) {
    root.fail(std::string("this is a ") + (*found == Arch::kMegha ? "Megha" : "PigeonC") +
              " configuration but --arch " + std::string(arch_name(*expect)) + " needs a " +
              (*expect == Arch::kMegha ? "Megha (megha_config_*_C.json)"
                                       : "PigeonC (pigeon_config_*_C.json)") +
              " one");
  }
  ClusterConfig c = *found == Arch::kMegha ? parse_megha(root) : parse_pigeon(root);
  c.source = source;
  return c;
}

ClusterConfig load_cluster_config(const std::string& path, std::optional<Arch> expect) {
  return parse_cluster_config(read_text_file(path), path, expect);
}

ClusterConfig replicate(const ClusterConfig& c, uint32_t copies) {
  if (copies <= 1) return c;
  ClusterConfig out = c;
  out.groups = c.groups.replicated(copies);
  out.group_names.clear();
  for (uint32_t r = 0; r < copies; ++r)
    for (const std::string& n : c.group_names)
      out.group_names.push_back(r == 0 ? n : n + " (copy " + std::to_string(r) + ")");
  out.num_lms = c.num_lms * copies;
  out.num_masters = c.num_masters * copies;
  out.replicas = c.replicas * copies;
  return out;
}

}  // namespace orrery::federated
