#include "reports/cli/claim_rows.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "estimators/simulation/simulate.hpp"
#include "estimators/statistics/decide.hpp"
#include "reports/cli/claim_figure.hpp"
#include "reports/report/progress.hpp"
#include "theory/closed_forms/exact.hpp"
#include "theory/closed_forms/expansions.hpp"
#include "theory/problems/problem_io.hpp"
#include "theory/problems/quadratic_problem.hpp"
#include "verify/claims/kit/kit.hpp"
#include "verify/claims/kit/verdict.hpp"

namespace fedverify::reports {
namespace {

// The predicted quantity at grid point i, as a matrix (a mean is one column).
Matrix predicted(const ClaimFile& c, std::size_t i) {
  const ClaimGridPoint& point = c.points[i];
  if (c.predicted == ClaimSource::numbers) {
    const std::string f = fmt::format("predicted.values[{}]", i);
    return c.quantity == ClaimQuantity::mean
               ? Matrix(theory::vector_from_json(c.predicted_values[i], f))
               : theory::matrix_from_json(c.predicted_values[i], f);
  }
  if (c.predicted == ClaimSource::formula) {
    return c.blocks->evaluate(*c.formula, point.algorithm, point.step, point.label).as_matrix();
  }
  if (c.predicted == ClaimSource::exact) {
    const theory::ExactMoments e = theory::exact_moments(
        dynamic_cast<const theory::QuadraticProblem&>(*c.problem), point.algorithm, point.step);
    return c.quantity == ClaimQuantity::mean ? Matrix(e.mean) : e.cov;
  }
  const theory::FirstOrderMoments f =
      theory::first_order(theory::expansion_coefficients(*c.problem), point.algorithm, point.step);
  return c.quantity == ClaimQuantity::mean ? Matrix(f.mean) : f.cov;
}

// The exact quantity at grid point i (the measured side of tolerance and remainder_order).
Matrix exact(const ClaimFile& c, std::size_t i) {
  const theory::ExactMoments e =
      theory::exact_moments(dynamic_cast<const theory::QuadraticProblem&>(*c.problem),
                            c.points[i].algorithm, c.points[i].step);
  return c.quantity == ClaimQuantity::mean ? Matrix(e.mean) : e.cov;
}

nlohmann::json as_json(const Matrix& m) {
  return m.cols() == 1 ? nlohmann::json(claims::kit::to_std(m.col(0)))
                       : nlohmann::json(claims::kit::rows_of(m));
}

// The prediction's entries as exact gates ("predicted[k]", column-major): a change of the formula
// or of the numbers behind it is a regression against a baseline.
void gate_prediction(claims::Row& row, const Matrix& p) {
  claims::kit::gate_exact(row, "predicted", Vector(p.reshaped()));
}

// remainder_order: one row per setting but γ, the log–log slope of max |P − E| over its step
// sizes against the order s0 (estimators::remainder_order_exceeds), at α split over the rows.
claims::ClaimResult remainder_rows(const ClaimFile& c) {
  std::map<std::string, std::vector<std::size_t>> groups;  // setting but γ → grid points
  std::vector<std::string> order;                          // first appearance
  for (std::size_t i = 0; i < c.points.size(); ++i) {
    auto [it, fresh] = groups.try_emplace(c.points[i].others);
    if (fresh) order.push_back(c.points[i].others);
    it->second.push_back(i);
  }
  const double alpha = c.alpha / static_cast<double>(groups.size());
  claims::ClaimResult out;
  for (const std::string& others : order) {
    std::vector<double> gammas, errors;
    nlohmann::json settings = nlohmann::json::array();
    for (const std::size_t i : groups[others]) {
      gammas.push_back(c.points[i].step.gamma);
      errors.push_back((predicted(c, i) - exact(c, i)).cwiseAbs().maxCoeff());
      settings.push_back(c.points[i].setting);
    }
    claims::Row row;
    row.setting = fmt::format("{}, γ ∈ {{{:g}}}", others, fmt::join(gammas, ", "));
    row.predicted = fmt::format("remainder order > {:g}", c.order);
    row.data = {{"gammas", gammas}, {"errors", errors}, {"order", c.order}, {"settings", settings}};
    const bool all_zero =
        std::all_of(errors.begin(), errors.end(), [](double e) { return e == 0.0; });
    if (all_zero || std::any_of(errors.begin(), errors.end(), [](double e) { return e == 0.0; })) {
      // No remainder to fit: exact at every γ holds any order; exact at some γ only is no slope.
      row.passed = all_zero;
      row.measured = all_zero ? "the prediction is exact at every γ (no remainder)"
                              : "the remainder is 0 at some γ but not all: no slope to fit";
    } else {
      const estimators::Decision d =
          estimators::remainder_order_exceeds(gammas, errors, c.order, alpha);
      row.passed = d.passed;
      row.measured = fmt::format("max |predicted − exact| = {:.3g}; {}", fmt::join(errors, ", "),
                                 d.description);
      row.data["statistic"] = d.statistic;
      row.data["threshold"] = d.threshold;
      row.data["p_value"] = d.p_value;
      row.data["slope"] = d.estimate;
      row.data["std_error"] = d.std_error;
      claims::kit::gate(row, "slope", d.estimate, claims::kit::kBaselineZ * d.std_error);
    }
    out.rows.push_back(std::move(row));
  }
  return out;
}

// A simulated mean or covariance flattened to what the rule compares: a mean's coordinates, a
// covariance's upper triangle.
struct Entries {
  Vector estimate, se, predicted;
};
Entries entries(const ClaimFile& c, const Matrix& p, const estimators::MomentEstimate& m) {
  if (c.quantity == ClaimQuantity::mean) return {m.mean, m.mean_mcse, p.col(0)};
  const Eigen::Index d = p.rows();
  Entries e;
  e.estimate.resize(d * (d + 1) / 2);
  e.se.resize(e.estimate.size());
  e.predicted.resize(e.estimate.size());
  Eigen::Index k = 0;
  for (Eigen::Index i = 0; i < d; ++i) {
    for (Eigen::Index j = i; j < d; ++j, ++k) {
      e.estimate(k) = m.cov(i, j);
      e.se(k) = m.cov_mcse.size() > 0 ? m.cov_mcse(i, j) : 0.0;
      e.predicted(k) = p(i, j);
    }
  }
  return e;
}

// The rule of a simulated row. Without an allowance: Hotelling's T² on the batch means (a mean),
// the entrywise rule (d) with batch-means MCSEs (a covariance). With a known-remainder allowance a
// (relative to max|P|): every entry within a·max|P| + q·MCSE, rule (d) for a covariance and rule
// (e) per coordinate for a mean (Student-t, Bonferroni over the coordinates) — a point null
// would reject a prediction that is right up to its declared remainder.
estimators::Decision simulated_rule(const ClaimFile& c, const Matrix& p,
                                    const estimators::MomentEstimate& m, double alpha) {
  const double scale = p.cwiseAbs().maxCoeff() > 0 ? p.cwiseAbs().maxCoeff() : 1.0;
  const double allowance = c.allowance * scale;
  if (c.quantity == ClaimQuantity::cov) {
    const Matrix slack = Matrix::Constant(p.rows(), p.cols(), allowance);
    return estimators::matrix_agreement(m.cov, p, m.cov_mcse, slack, alpha);
  }
  if (c.allowance == 0) return estimators::hotelling_mean_test(m, p.col(0), alpha);
  const double dof = static_cast<double>(m.batches() - 1);
  const auto d = static_cast<double>(p.rows());
  estimators::Decision worst;
  bool all = true;
  for (Eigen::Index i = 0; i < p.rows(); ++i) {
    const estimators::Decision r =
        estimators::z_agreement({m.mean(i), m.mean_mcse(i), dof}, p(i, 0), allowance, alpha / d);
    all = all && r.passed;
    if (i == 0 || r.statistic > worst.statistic) worst = r;
  }
  worst.passed = all;
  worst.description = fmt::format("every coordinate within the allowance {:.3g} (worst: {})",
                                  allowance, worst.description);
  return worst;
}

// The equivalence part of a simulated row (verify/claims/kit/verdict.hpp): every entry confirmed
// within δ = margin·max|P| by two one-sided tests at the row's α (intersection–union), and the
// rule's minimum detectable error relative to max|P| at kit::kPower — Hotelling's in its
// least-resolved direction, the entrywise rules' at their largest MCSE — with the allowance as
// the part no sample removes.
void add_equivalence(const ClaimFile& c, const Matrix& p, const estimators::MomentEstimate& m,
                     const estimators::Decision& rule, double alpha, claims::Row& row) {
  const double scale = p.cwiseAbs().maxCoeff() > 0 ? p.cwiseAbs().maxCoeff() : 1.0;
  const double delta = c.margin * scale;
  const Entries e = entries(c, p, m);
  const double dof = c.quantity == ClaimQuantity::mean ? static_cast<double>(m.batches() - 1) : 0;
  const double mde =
      c.quantity == ClaimQuantity::mean && c.allowance == 0
          ? estimators::hotelling_minimum_detectable_error(m.mean_cov, m.batches(), alpha,
                                                           claims::kit::kPower)
          : estimators::minimum_detectable_error(rule.threshold, dof, e.se.maxCoeff(),
                                                 c.allowance * scale, claims::kit::kPower);
  const Vector lower = e.predicted.array() - delta;
  const Vector upper = e.predicted.array() + delta;
  const estimators::Decision tost =
      estimators::equivalence_test(e.estimate, e.se, dof, lower, upper, alpha);
  claims::kit::add_equivalence(row, c.margin, tost.passed, tost.description, mde / scale,
                               c.allowance);
}

claims::ClaimResult point_rows(const ClaimFile& c, const claims::Context& ctx) {
  if (c.rule == ClaimRule::remainder_order) return remainder_rows(c);
  claims::ClaimResult out;
  const double alpha = c.alpha / static_cast<double>(c.points.size());  // Bonferroni over rows
  reports::ProgressLine progress("check", "grid points");  // on a terminal (progress.hpp)
  for (std::size_t i = 0; i < c.points.size(); ++i) {
    const ClaimGridPoint& point = c.points[i];
    progress.update(static_cast<long>(i), static_cast<long>(c.points.size()), point.label);
    const Matrix p = predicted(c, i);
    claims::Row row;
    row.setting = point.label;
    row.predicted = fmt::format("{} {}", c.quantity == ClaimQuantity::mean ? "mean" : "covariance",
                                c.predicted == ClaimSource::numbers   ? "given"
                                : c.predicted == ClaimSource::formula ? "from the formula"
                                : c.predicted == ClaimSource::exact   ? "exact"
                                                                      : "first order");
    row.data = {{"setting", point.setting}, {"predicted", as_json(p)}};
    gate_prediction(row, p);
    if (c.measured == ClaimSource::exact) {
      const Matrix m = exact(c, i);
      // Relative to the exact value: max|P − M| ≤ t·max|M|. (An absolute floor would let a
      // covariance of size 1e-3 be 30 % off at t = 0.05.) An exact value of 0 admits only P = 0.
      const double gap = (m - p).cwiseAbs().maxCoeff();
      const double scale = m.cwiseAbs().maxCoeff();
      const double relative = scale > 0 ? gap / scale : (gap > 0 ? HUGE_VAL : 0.0);
      row.measured = fmt::format(
          "exact; max |measured − predicted| = {:.3g}, relative to max |measured| {:.3g} "
          "(tolerance {:g})",
          gap, relative, c.tolerance);
      row.passed = relative <= c.tolerance;
      row.data.update({{"exact", as_json(m)},
                       {"gap", gap},
                       {"relative_error", relative},
                       {"tolerance", c.tolerance}});
    } else {
      estimators::SimulationSpec spec;
      spec.algorithm = point.algorithm;
      spec.step = point.step;
      spec.chains = c.chains;
      spec.rounds = c.rounds;
      spec.burn_in = c.burn_in;
      spec.seed = claims::kit::row_seed(ctx, c.id, row.setting);
      spec.threads = ctx.options.threads;
      row.data["seed"] = spec.seed;
      const estimators::SimulationResult r = estimators::simulate(*c.problem, spec);
      if (r.diverged) {
        row.measured = "diverged: " + r.divergence;
        row.passed = false;
      } else {
        const estimators::Decision d = simulated_rule(c, p, r.moments, alpha);
        row.measured =
            fmt::format("simulated ({} chains × {} rounds); {}", c.chains, c.rounds, d.description);
        row.passed = d.passed;
        const bool mean = c.quantity == ClaimQuantity::mean;
        row.data.update(
            {{"measured", mean ? as_json(Matrix(r.moments.mean)) : as_json(r.moments.cov)},
             {"mcse", mean ? as_json(Matrix(r.moments.mean_mcse)) : as_json(r.moments.cov_mcse)},
             {"statistic", d.statistic},
             {"threshold", d.threshold},
             {"p_value", d.p_value},
             {"rule", d.description}});
        if (c.allowance > 0) row.data["allowance"] = c.allowance;
        add_equivalence(c, p, r.moments, d, alpha, row);
      }
    }
    out.rows.push_back(std::move(row));
  }
  return out;
}

}  // namespace

claims::ClaimResult claim_rows(const ClaimFile& c, const claims::Context& ctx) {
  claims::ClaimResult out = point_rows(c, ctx);
  add_claim_figure(c, ctx, out);
  return out;
}

claims::Claim claim_of(const std::shared_ptr<const ClaimFile>& c, std::string family) {
  claims::Claim claim;
  claim.order = {claims::Section::quadratic_exact, 0};
  claim.id = c->id;
  claim.family = std::move(family);
  claim.card.statement = c->statement;
  claim.card.formula = c->predicted == ClaimSource::formula   ? c->formula->text()
                       : c->predicted == ClaimSource::numbers ? "the values given in the file"
                       : c->predicted == ClaimSource::exact
                           ? "exact moments (theory::exact_moments)"
                           : "first-order moments (theory::first_order)";
  claim.card.theory_label = "—";
  claim.card.setting =
      fmt::format("{}, {}, {} grid points", c->path, c->algorithm_name, c->points.size());
  claim.card.decision_rule =
      c->rule == ClaimRule::remainder_order
          ? fmt::format(
                "per setting but γ: the log–log slope of max |predicted − exact| against γ "
                "exceeds {:g} (one-sided t, as the Python Claim's remainder_order; α split over "
                "the rows)",
                c->order)
      : c->rule == ClaimRule::tolerance
          ? fmt::format(
                "max |measured − predicted| ≤ {:g}·max |measured| (exact; relative, as "
                "the Python Claim's tolerance)",
                c->tolerance)
          : fmt::format("{} at α = {:g} (Bonferroni over the grid){}",
                        c->rule == ClaimRule::hotelling && c->allowance == 0
                            ? "Hotelling T² on batch means"
                            : "entrywise agreement with batch-means MCSE",
                        c->alpha,
                        c->allowance > 0 ? fmt::format(", beyond a known remainder of {:g}·max|"
                                                       "prediction| (decision.allowance)",
                                                       c->allowance)
                                         : "");
  claim.alpha = c->rule == ClaimRule::tolerance ? 0.0 : c->alpha;
  if (c->rule == ClaimRule::hotelling || c->rule == ClaimRule::matrix_agreement) {
    claim.card.margin = fmt::format(
        "±{:g} % of max|prediction| (decision.margin), every entry confirmed by two one-sided "
        "tests at the row's α",
        100 * c->margin);
  }
  claim.run = [c](const claims::Context& ctx) { return claim_rows(*c, ctx); };
  return claim;
}

}  // namespace fedverify::reports
