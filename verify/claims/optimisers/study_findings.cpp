// The findings of the thesis's §2.6.1 as claims of the optimiser study (THEORY O6): each finding
// names a winner and its rivals; its verdict per data set is decision rule (n) on the paired test
// losses of study_common.cpp's runs.
#include "verify/claims/optimisers/study_common.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <stdexcept>
#include <tuple>

#include "estimators/samplers/training/federated_trainer.hpp"
#include "estimators/statistics/moments.hpp"
#include "theory/problems/logistic_data.hpp"
#include "theory/problems/multinomial_data.hpp"
#include "theory/problems/optimiser.hpp"
#include "verify/claims/kit/kit.hpp"
#include "verify/claims/kit/verdict.hpp"

namespace fedverify::claims::optimisers::study {

using estimators::ReplicatedMean;

namespace {

Finding make_finding(std::string name, const std::string& winner,
                     const std::vector<std::string>& losers) {
  Finding f{std::move(name), {}, winner};
  for (const auto& l : losers) {
    const auto p = paired_configs(winner, l);
    f.pairs.insert(f.pairs.end(), p.begin(), p.end());
  }
  return f;
}

const std::map<std::string, Finding>& all_findings() {
  static const std::map<std::string, Finding> findings = {
      {"optimisers.study-dowg",
       make_finding("DoWG best of the parameter-free optimisers", "dowg", {"dog", "prodigy"})},
      {"optimisers.study-adam-vs-adaptive-lr",
       make_finding("Adam beats RMSProp, Adadelta and Adagrad", "adam",
                    {"rmsprop", "adadelta", "adagrad"})},
      {"optimisers.study-adam-momentum-family",
       make_finding("Adam best of the adaptive-momentum family", "adam",
                    {"nadam", "radam", "amsgrad", "adamax"})},
      {"optimisers.study-adagrad-family",
       make_finding("Adagrad best of the adaptive-learning-rate family", "adagrad",
                    {"rmsprop", "adadelta"})},
      {"optimisers.study-fedexp",
       make_finding("FedExP server extrapolation dominates", "exp", {"sgd"})},
  };
  return findings;
}

}  // namespace

const Finding& finding(const std::string& id) {
  const auto found = all_findings().find(id);
  if (found == all_findings().end()) throw std::logic_error("study: no finding " + id);
  return found->second;
}

const std::vector<std::string>& finding_ids() {
  static const std::vector<std::string> ids = {
      "optimisers.study-dowg", "optimisers.study-adam-vs-adaptive-lr",
      "optimisers.study-adam-momentum-family", "optimisers.study-adagrad-family",
      "optimisers.study-fedexp"};
  return ids;
}

estimators::OrderingDecision decide_finding(const DatasetResult& data, const Finding& finding) {
  std::vector<ReplicatedMean> differences;
  for (const auto& [better, worse] : finding.pairs) {
    const ConfigResult& a = data.by_index(better);
    const ConfigResult& b = data.by_index(worse);
    std::vector<double> d(a.test_loss.size());
    for (std::size_t s = 0; s < d.size(); ++s) d[s] = a.test_loss[s] - b.test_loss[s];
    differences.push_back(estimators::replicated_mean(d));
  }
  return estimators::ordering_verdict(differences, kStudyAlpha);
}

Row finding_row(const DatasetResult& data, const Finding& finding) {
  const estimators::OrderingDecision decision = decide_finding(data, finding);
  Row row;
  row.setting = fmt::format("{}: {} pairs", data.name, finding.pairs.size());
  row.predicted = fmt::format("{}: every loss difference < 0", finding.name);
  int below = 0, above = 0;
  nlohmann::json pairs = nlohmann::json::array();
  for (std::size_t i = 0; i < finding.pairs.size(); ++i) {
    const auto& iv = decision.intervals[i];
    below += iv.upper < 0 ? 1 : 0;
    above += iv.lower > 0 ? 1 : 0;
    pairs.push_back({{"better", config(finding.pairs[i].first).label()},
                     {"worse", config(finding.pairs[i].second).label()},
                     {"difference", iv.estimate},
                     {"se", iv.std_error},
                     {"lower", iv.lower},
                     {"upper", iv.upper}});
  }
  row.measured = fmt::format("{}: {} of {} differences significantly < 0, {} > 0",
                             to_string(decision.verdict), below, finding.pairs.size(), above);
  row.passed = decision.verdict != estimators::Ordering::fails;
  row.data = {{"verdict", to_string(decision.verdict)},
              {"alpha", decision.alpha},
              {"seeds", data.configs.empty() ? 0 : data.configs[0].test_loss.size()},
              {"pairs", pairs}};
  // The equivalence part: "holds" is a one-sided confirmation at the row's α (intersection–union
  // of the simultaneous intervals); its MDE is the largest over the pairs, relative to the loss
  // at x = 0.
  estimators::Decision holds = decision.intervals[0];
  for (const auto& iv : decision.intervals) {
    if (iv.threshold * iv.std_error > holds.threshold * holds.std_error) holds = iv;
  }
  holds.passed = decision.verdict == estimators::Ordering::holds;
  holds.description =
      fmt::format("every simultaneous interval below 0 ({})", to_string(decision.verdict));
  kit::confirmation(row, finding.name, holds, data.initial_loss);
  return row;
}

ClaimResult finding_claim(const Context& ctx, const Finding& finding) {
  const StudyResult& s = study_for(ctx);
  ClaimResult out;
  std::string verdicts;
  for (const auto& d : s.datasets) {
    out.rows.push_back(finding_row(d, finding));
    verdicts += fmt::format("{}{}: {}", verdicts.empty() ? "" : "; ", d.name,
                            out.rows.back().data["verdict"].get<std::string>());
  }
  out.note = fmt::format("Verdicts on the convex proxies — {} ({} evaluation seeds, {} rounds).",
                         verdicts, s.options.seeds, s.options.rounds);
  return out;
}

}  // namespace fedverify::claims::optimisers::study

namespace fedverify::claims::optimisers::study {

bool register_finding(const char* id, int position, std::string_view card) {
  const std::string name(id);
  return register_claim(
      {.id = name,
       .order = {Section::optimiser_study, position},
       .card = card,
       .values = {{"study",
                   "the study of optimisers.study-table; test losses of the tuned configurations "
                   "over the evaluation seeds (common random numbers: each seed's data, clients "
                   "and minibatches are shared by all configurations)"},
                  {"decision",
                   fmt::format(
                       "per data set, simultaneous two-sided Student-t intervals of the mean "
                       "paired differences at family-wise α = {} (Bonferroni over the pairs, "
                       "decide.hpp (n)): holds when every interval lies below 0, fails when some "
                       "interval lies above 0 (the row fails: the finding is refuted there), "
                       "inconclusive otherwise (the row passes: not refuted)",
                       kStudyAlpha)},
                  {"margin",
                   "none (an ordering, not an agreement): \"holds\" is the one-sided "
                   "confirmation; the MDE is the widest interval's, relative to the loss at x = 0 "
                   "(log K)"}},
       .alpha = kStudyAlpha,
       .opt_in = true,
       .hypothesis = true,
       .shared_run = kSharedRun,
       .sweep = true,
       .run = [name](const Context& ctx) { return finding_claim(ctx, finding(name)); }});
}

}  // namespace fedverify::claims::optimisers::study
