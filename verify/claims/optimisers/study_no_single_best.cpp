// Claim optimisers.study-no-single-best (THEORY O6): [Thesis] §2.6.1's "no single optimizer
// performs best across all tasks" over the study's Table 2.2 configurations and data sets, with
// the multiple-comparison rule of study_no_single_best.hpp.
#include "verify/claims/optimisers/study_no_single_best.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "verify/claims/kit/kit.hpp"
#include "verify/claims/kit/verdict.hpp"

namespace fedverify::claims::optimisers::study {
namespace {

constexpr const char* kId = "optimisers.study-no-single-best";

constexpr const char* kCard = R"(
Summary: Thesis §2.6.1: no single Table 2.2 configuration has the lowest test loss on every data
  set.
Statement: "The effectiveness of an optimizer is dataset dependent, no single optimizer performs
  best across all tasks" ([Thesis] §2.6.1): for every configuration of Table 2.2 there is a data
  set on which another configuration has a lower test loss.
Formula: D_{c,c',d} = loss_d(c) − loss_d(c'), paired over seeds; claim: for every c there are c', d
  with E[D_{c,c',d}] > 0
THEORY: (O6)
Setting: ${study}; all 48 configurations, every data set of the study (quick: breast-cancer only:
  inconclusive, the claim is about two or more data sets).
Decision: per configuration c, decide.hpp (n) on its |D|·47 differences at family-wise α = ${alpha}
  (Bonferroni): c is beaten when some interval lies above 0. Holds when every c is beaten
  (intersection–union: level α without a correction across c); fails when some c has every
  interval below 0 at α/48 (significantly best everywhere; Bonferroni over the candidates);
  inconclusive otherwise, and with fewer than two data sets (the row passes: not refuted)
Sample row:
  | 3 data sets, 48 configurations | every configuration beaten somewhere | holds: 48 of 48 beaten; best: #… | ✅ |
Margin: none (an ordering, not an agreement)
)";

std::string labels(const std::vector<int>& indices) {
  std::string out;
  for (int i : indices) out += (out.empty() ? "" : ", ") + config(i).label();
  return out.empty() ? "none" : out;
}

}  // namespace

NoSingleBest decide_no_single_best(const std::vector<DatasetResult>& datasets, double alpha) {
  if (datasets.empty() || datasets[0].configs.size() < 2)
    throw std::logic_error("decide_no_single_best: needs two configurations and a data set");
  NoSingleBest out;
  out.alpha = alpha;
  const auto k = static_cast<double>(datasets[0].configs.size());
  for (const DatasetResult& d : datasets) {
    const auto best = std::min_element(d.configs.begin(), d.configs.end(),
                                       [](auto& a, auto& b) { return a.loss.mean < b.loss.mean; });
    out.best_by_dataset.push_back(best->index);
  }
  bool every_beaten = true;
  for (const ConfigResult& c : datasets[0].configs) {
    std::vector<estimators::ReplicatedMean> differences;
    for (const DatasetResult& d : datasets) {
      const ConfigResult& mine = d.by_index(c.index);
      for (const ConfigResult& rival : d.configs) {
        if (rival.index == c.index) continue;
        std::vector<double> diff(mine.test_loss.size());
        for (std::size_t s = 0; s < diff.size(); ++s)
          diff[s] = mine.test_loss[s] - rival.test_loss[s];
        differences.push_back(estimators::replicated_mean(diff));
      }
    }
    const estimators::OrderingDecision decision = estimators::ordering_verdict(differences, alpha);
    const bool beaten = decision.verdict == estimators::Ordering::fails;
    const auto strongest =
        std::max_element(decision.intervals.begin(), decision.intervals.end(),
                         [](const auto& a, const auto& b) { return a.lower < b.lower; });
    if (c.index == datasets[0].configs[0].index || strongest->lower < out.weakest.lower)
      out.weakest = *strongest;
    if (!beaten) out.unbeaten.push_back(c.index);
    every_beaten = every_beaten && beaten;
    if (estimators::ordering_verdict(differences, alpha / k).verdict ==
        estimators::Ordering::holds) {
      out.dominant.push_back(c.index);
    }
  }
  // One data set says nothing about "across tasks": its clear winner is not a counter-example.
  if (datasets.size() >= 2) {
    out.verdict = !out.dominant.empty() ? estimators::Ordering::fails
                  : every_beaten        ? estimators::Ordering::holds
                                        : estimators::Ordering::inconclusive;
  }
  out.weakest.passed = out.verdict == estimators::Ordering::holds;
  out.weakest.description =
      fmt::format("every configuration beaten somewhere ({})", to_string(out.verdict));
  return out;
}

namespace {

ClaimResult run(const Context& ctx) {
  const StudyResult& s = study_for(ctx);
  const NoSingleBest decision = decide_no_single_best(s.datasets, kStudyAlpha);
  std::string best, names;
  for (std::size_t i = 0; i < s.datasets.size(); ++i) {
    best += fmt::format("{}{}: {}", best.empty() ? "" : "; ", s.datasets[i].name,
                        config(decision.best_by_dataset[i]).label());
    names += (names.empty() ? "" : ", ") + s.datasets[i].name;
  }
  const std::size_t configs = s.datasets.empty() ? 0 : s.datasets[0].configs.size();
  Row row;
  row.setting =
      fmt::format("{} data sets ({}), {} configurations", s.datasets.size(), names, configs);
  row.predicted = "every configuration beaten on some data set";
  row.measured = fmt::format("{}: {} of {} beaten; unbeaten: {}; dominant: {}; best — {}",
                             to_string(decision.verdict), configs - decision.unbeaten.size(),
                             configs, labels(decision.unbeaten), labels(decision.dominant), best);
  row.passed = decision.verdict != estimators::Ordering::fails;
  row.data = {{"verdict", to_string(decision.verdict)},
              {"alpha", decision.alpha},
              {"unbeaten", decision.unbeaten},
              {"dominant", decision.dominant},
              {"best_by_dataset", decision.best_by_dataset}};
  kit::gate(row, "beaten", static_cast<double>(configs - decision.unbeaten.size()), 0.5);
  // "holds" is confirmed at the rule's α (intersection–union); the MDE is the weakest link's,
  // relative to the loss at x = 0.
  kit::confirmation(row, "no configuration best on every data set", decision.weakest,
                    s.datasets.empty() ? 1.0 : s.datasets[0].initial_loss);
  ClaimResult out;
  out.rows.push_back(std::move(row));
  out.note = fmt::format("Verdict {} over {} ({} evaluation seeds, {} rounds).",
                         to_string(decision.verdict), names, s.options.seeds, s.options.rounds);
  return out;
}

const bool registered = register_claim(
    {.id = kId,
     .order = {Section::optimiser_study, 7},
     .card = kCard,
     .values = {{"study",
                 "the study of optimisers.study-table; test losses of the tuned configurations "
                 "over the evaluation seeds (common random numbers)"},
                {"alpha", kStudyAlpha}},
     .alpha = kStudyAlpha,
     .opt_in = true,
     .hypothesis = true,
     .shared_run = kSharedRun,
     .sweep = true,
     .run = run});

}  // namespace
}  // namespace fedverify::claims::optimisers::study
