// Claim optimisers.study-client-epsilon (THEORY O6): [Thesis] §2.5.1, "we tuned the parameter ε in
// all adaptive methods for the update of client-side models, which improved both the training
// performance and the test accuracy", as an ordering of the study's configurations 26–33 (SGD
// server, a client optimiser with an ε key, Table 2.1's ε) and their variants 49–56 (ε tuned with
// the step, study_configurations.hpp epsilon_variants). Decided as the findings are
// (study_findings.cpp).
#include <fmt/format.h>

#include <string>

#include "verify/claims/kit/once_per_run.hpp"
#include "verify/claims/optimisers/study_common.hpp"

namespace fedverify::claims::optimisers::study {
namespace {

constexpr const char* kId = "optimisers.study-client-epsilon";

constexpr const char* kCard = R"(
Summary: Thesis §2.5.1: tuning the adaptive clients' ε (with their step) lowers the test loss.
Statement: Tuning ε of the adaptive client optimisers improves the test performance ([Thesis]
  §2.5.1): with the SGD server, each client optimiser that has an ε reaches a lower test loss when
  its ε is tuned with its step than with Table 2.1's ε.
Formula: D_o = loss(SGD server, client o, (step, ε) tuned) − loss(SGD server, client o, step
  tuned, ε of Table 2.1), paired over seeds; finding: E[D_o] < 0 for all o
THEORY: (O6)
Setting: ${study}; the 8 client optimisers with an ε key (configurations 26–33 against their
  variants 49–56); ε tuned on {${grid}} jointly with the 4-value step grid (20 runs per variant)
  on the tuning seed, by the validation loss.
Decision: per data set, simultaneous two-sided Student-t intervals of the mean paired differences
  at family-wise α = ${alpha} (Bonferroni over the 8 pairs, decide.hpp (n)): holds when every
  interval lies below 0, fails when some interval lies above 0 (tuning on one seed made that
  client worse on the others), inconclusive otherwise (the row passes: not refuted)
Sample row:
  | breast-cancer: 8 pairs | every D < 0 | inconclusive: 2 of 8 significantly < 0, 0 > 0 | ✅ |
Margin: none (an ordering, not an agreement): "holds" is the one-sided confirmation
)";

// The ε study: configurations 26–33 and 49–56 only, with the main study's seeds (so 26–33 have
// the same numbers as in optimisers.study-table), computed once per run.
const StudyResult& epsilon_study_for(const Context& ctx) {
  return kit::once_per_run(ctx, [](const Context& c) {
    StudyOptions o = study_options(c.options, c.attempt);
    o.spread = c.spread;
    for (const TableConfig& v : epsilon_variants()) {
      o.configs.push_back(epsilon_counterpart(v).index);
      o.configs.push_back(v.index);
    }
    return run_study(o);
  });
}

ClaimResult run(const Context& ctx) {
  const StudyResult& s = epsilon_study_for(ctx);
  Finding finding{"Tuning the clients' ε lowers the test loss", {}, "eps"};
  for (const TableConfig& v : epsilon_variants())
    finding.pairs.emplace_back(v.index, epsilon_counterpart(v).index);
  ClaimResult out;
  std::string verdicts, tuned;
  for (const DatasetResult& d : s.datasets) {
    out.rows.push_back(finding_row(d, finding));
    verdicts += fmt::format("{}{}: {}", verdicts.empty() ? "" : "; ", d.name,
                            out.rows.back().data["verdict"].get<std::string>());
    std::string list;
    for (const auto& [variant, base] : finding.pairs) {
      list += fmt::format("{}{} {:g}", list.empty() ? "" : ", ", config(variant).client,
                          d.by_index(variant).epsilon);
    }
    tuned += fmt::format("{}{}: {}", tuned.empty() ? "" : "; ", d.name, list);
  }
  out.note = fmt::format("Verdicts — {} ({} evaluation seeds, {} rounds). Tuned ε — {}.", verdicts,
                         s.options.seeds, s.options.rounds, tuned);
  return out;
}

std::string grid_text() {
  std::string out;
  for (double e : epsilon_grid()) out += fmt::format("{}{:g}", out.empty() ? "" : ", ", e);
  return out;
}

const bool registered = register_claim(
    {.id = kId,
     .order = {Section::optimiser_study, 8},
     .card = kCard,
     .values = {{"study",
                 "the study of optimisers.study-table (its protocol and seeds), restricted to the "
                 "configurations below"},
                {"grid", grid_text()},
                {"alpha", kStudyAlpha}},
     .alpha = kStudyAlpha,
     .opt_in = true,
     .hypothesis = true,
     .shared_run = kSharedRun,
     .sweep = true,
     .run = run});

}  // namespace
}  // namespace fedverify::claims::optimisers::study
