// The KubeDSM authors' raw measurements (AUT-Cloud-Lab/MineDraft, the placement histories behind
// the paper's figures), reduced by orrery's own tool docs/repro/tools/minedraft_edge_ratio.py to
// the pooled edge ratio (fractions): per run the mean over its 15 s samples of the edge pods of
// A–D over all their bound pods, with every sample ("pooled") or without the idle head and tail
// ("busy"); then the mean over the runs (10 per point) of the newest dated directory holding the
// scenario. Labels are the paper's; "NoMigration 0/0" is the authors' ecmus-no-migration runs,
// which the paper's Fig. 10 shows as "NoEdgeMig" (docs/repro/kubedsm.md).
#pragma once

#include <string_view>

namespace orrery::kubedsm {

struct AuthorsPoint {
  std::string_view series;    // "KubeDSM", "K8S", ..., "MidMig 2/1"
  std::string_view scenario;  // "1.5_0.4"
  double pooled;
  double pooled_busy;
  int runs;
};

inline constexpr AuthorsPoint kAuthorsData[] = {
    {"KubeDSM", "1.1_0.4", 0.8478, 0.8068, 10},
    {"KubeDSM", "1.2_0.4", 0.7990, 0.7611, 10},
    {"KubeDSM", "1.3_0.4", 0.8115, 0.7568, 10},
    {"KubeDSM", "1.4_0.4", 0.7566, 0.7066, 10},
    {"KubeDSM", "1.5_0.4", 0.7432, 0.6838, 10},
    {"KubeDSM", "1.6_0.4", 0.7149, 0.6558, 10},
    {"KubeDSM", "1.5_0.1", 0.7603, 0.7035, 10},
    {"KubeDSM", "1.5_0.2", 0.7449, 0.6889, 10},
    {"KubeDSM", "1.5_0.3", 0.7318, 0.6719, 10},
    {"KubeDSM", "1.5_0.5", 0.7612, 0.6976, 10},
    {"K8S", "1.1_0.4", 0.7617, 0.7197, 10},
    {"K8S", "1.2_0.4", 0.7413, 0.6903, 10},
    {"K8S", "1.3_0.4", 0.6833, 0.6341, 10},
    {"K8S", "1.4_0.4", 0.6723, 0.6242, 10},
    {"K8S", "1.5_0.4", 0.6536, 0.5999, 10},
    {"K8S", "1.6_0.4", 0.6187, 0.5673, 10},
    {"K8S", "1.5_0.1", 0.6445, 0.6276, 10},
    {"K8S", "1.5_0.2", 0.6801, 0.6375, 10},
    {"K8S", "1.5_0.3", 0.6659, 0.6045, 10},
    {"K8S", "1.5_0.5", 0.6520, 0.5969, 10},
    {"Random", "1.1_0.4", 0.5079, 0.4995, 10},
    {"Random", "1.2_0.4", 0.5595, 0.5416, 10},
    {"Random", "1.3_0.4", 0.5381, 0.5311, 10},
    {"Random", "1.4_0.4", 0.5046, 0.5014, 10},
    {"Random", "1.5_0.4", 0.5296, 0.5246, 10},
    {"Random", "1.6_0.4", 0.5059, 0.5039, 10},
    {"Random", "1.5_0.1", 0.4908, 0.4713, 10},
    {"Random", "1.5_0.2", 0.4736, 0.4679, 10},
    {"Random", "1.5_0.3", 0.4647, 0.4640, 10},
    {"Random", "1.5_0.5", 0.4815, 0.4754, 10},
    {"BEF", "1.1_0.4", 0.6496, 0.5920, 10},
    {"BEF", "1.2_0.4", 0.6480, 0.5669, 10},
    {"BEF", "1.3_0.4", 0.5989, 0.5316, 10},
    {"BEF", "1.4_0.4", 0.5831, 0.5079, 10},
    {"BEF", "1.5_0.4", 0.5779, 0.5190, 10},
    {"BEF", "1.6_0.4", 0.5330, 0.4776, 10},
    {"BEF", "1.5_0.1", 0.5949, 0.5375, 10},
    {"BEF", "1.5_0.2", 0.5894, 0.5197, 10},
    {"BEF", "1.5_0.3", 0.5976, 0.5183, 10},
    {"BEF", "1.5_0.5", 0.5935, 0.4966, 10},
    {"SEF", "1.1_0.4", 0.6539, 0.6082, 10},
    {"SEF", "1.2_0.4", 0.6253, 0.5587, 10},
    {"SEF", "1.3_0.4", 0.6315, 0.5447, 10},
    {"SEF", "1.4_0.4", 0.6074, 0.5216, 10},
    {"SEF", "1.5_0.4", 0.6012, 0.5161, 10},
    {"SEF", "1.6_0.4", 0.5374, 0.4775, 10},
    {"SEF", "1.5_0.1", 0.5679, 0.5304, 10},
    {"SEF", "1.5_0.2", 0.5683, 0.5167, 10},
    {"SEF", "1.5_0.3", 0.6062, 0.5111, 10},
    {"SEF", "1.5_0.5", 0.5736, 0.4984, 10},
    {"CF", "1.1_0.4", 0.0864, 0.0850, 10},
    {"CF", "1.2_0.4", 0.1148, 0.1274, 10},
    {"CF", "1.3_0.4", 0.1796, 0.2048, 10},
    {"CF", "1.4_0.4", 0.2317, 0.2406, 10},
    {"CF", "1.5_0.4", 0.2888, 0.2889, 10},
    {"CF", "1.6_0.4", 0.3054, 0.3078, 10},
    {"CF", "1.5_0.1", 0.1398, 0.1623, 10},
    {"CF", "1.5_0.2", 0.2226, 0.2360, 10},
    {"CF", "1.5_0.3", 0.2366, 0.2541, 10},
    {"CF", "1.5_0.5", 0.2959, 0.2984, 10},
    {"MidMig 2/1", "1.3_0.4", 0.8266, 0.7835, 10},
    {"MidMig 2/1", "1.4_0.4", 0.7842, 0.7252, 10},
    {"NoCloudOffload 0/3", "1.3_0.4", 0.7190, 0.6506, 10},
    {"NoCloudOffload 0/3", "1.4_0.4", 0.6811, 0.6068, 10},
    {"NoEdgeMig 5/0", "1.3_0.4", 0.7953, 0.7442, 10},
    {"NoEdgeMig 5/0", "1.4_0.4", 0.7591, 0.6956, 10},
    {"NoMigration 0/0", "1.3_0.4", 0.7045, 0.6393, 10},
    {"NoMigration 0/0", "1.4_0.4", 0.6522, 0.6096, 10},
};

// The authors' point of a series and scenario, or nullptr.
inline const AuthorsPoint* authors_point(std::string_view series, std::string_view scenario) {
  for (const AuthorsPoint& p : kAuthorsData)
    if (p.series == series && p.scenario == scenario) return &p;
  return nullptr;
}

// Fig. 10's variants, run by run (pooled, idle samples included; the same runs as above, in the
// order of their file names): the authors' runs of different variants are independent, so their
// differences are compared unpaired (Welch) in the report.
struct AuthorsRuns {
  std::string_view series;
  std::string_view scenario;
  double pooled[10];
};

inline constexpr AuthorsRuns kAuthorsFig10Runs[] = {
    {"MidMig 2/1",
     "1.3_0.4",
     {0.8130, 0.8276, 0.8132, 0.8107, 0.8146, 0.8350, 0.8414, 0.8398, 0.8208, 0.8497}},
    {"MidMig 2/1",
     "1.4_0.4",
     {0.8091, 0.7615, 0.8277, 0.8015, 0.7991, 0.7971, 0.7541, 0.7582, 0.7711, 0.7625}},
    {"KubeDSM",
     "1.3_0.4",
     {0.8494, 0.8111, 0.8288, 0.7872, 0.8278, 0.8178, 0.8225, 0.8161, 0.7915, 0.7633}},
    {"KubeDSM",
     "1.4_0.4",
     {0.7775, 0.7492, 0.7598, 0.7230, 0.7938, 0.7471, 0.7729, 0.7595, 0.7145, 0.7687}},
    {"NoEdgeMig 5/0",
     "1.3_0.4",
     {0.7121, 0.8212, 0.7926, 0.7746, 0.8048, 0.7810, 0.7813, 0.8083, 0.8429, 0.8341}},
    {"NoEdgeMig 5/0",
     "1.4_0.4",
     {0.7493, 0.7278, 0.7335, 0.7676, 0.6983, 0.7993, 0.8105, 0.8157, 0.7055, 0.7834}},
    {"NoCloudOffload 0/3",
     "1.3_0.4",
     {0.6843, 0.6991, 0.7014, 0.7286, 0.7166, 0.7753, 0.7038, 0.7231, 0.7602, 0.6977}},
    {"NoCloudOffload 0/3",
     "1.4_0.4",
     {0.6241, 0.7257, 0.7304, 0.7081, 0.6790, 0.7318, 0.6313, 0.6703, 0.6493, 0.6611}},
    {"NoMigration 0/0",
     "1.3_0.4",
     {0.6921, 0.7510, 0.6497, 0.6185, 0.7444, 0.6715, 0.7285, 0.6812, 0.7559, 0.7521}},
    {"NoMigration 0/0",
     "1.4_0.4",
     {0.7114, 0.7510, 0.6425, 0.5594, 0.6156, 0.6662, 0.5783, 0.6911, 0.6258, 0.6806}},
};

// The authors' runs of a series and scenario, or nullptr.
inline const AuthorsRuns* authors_runs(std::string_view series, std::string_view scenario) {
  for (const AuthorsRuns& r : kAuthorsFig10Runs)
    if (r.series == series && r.scenario == scenario) return &r;
  return nullptr;
}

}  // namespace orrery::kubedsm
