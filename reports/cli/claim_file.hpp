// A claim file parsed and checked (docs/CLAIM_FILES.md): the problem, the grid of runs (a
// Cartesian product over γ, H, S and the algorithm's parameters, each point resolved as the
// command line resolves --algo and its options), the predicted and measured quantities and the
// decision rule. `fedverify check` (check_command.hpp) runs it.
#pragma once

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

#include "theory/closed_forms/formula_blocks.hpp"
#include "theory/problems/algorithm.hpp"
#include "theory/problems/problem.hpp"

namespace fedverify::reports {

enum class ClaimQuantity { mean, cov };
enum class ClaimSource { first_order, exact, numbers, formula, simulate };
enum class ClaimRule { tolerance, remainder_order, hotelling, matrix_agreement };

// One run of the grid: the algorithm the name resolves to with this point's options (a preset's
// parameters may change the resolved optimisers), and the row label ("γ = 0.05, H = 2, mu = 0.3").
struct ClaimGridPoint {
  theory::Algorithm algorithm;
  theory::RunSetting step;
  std::string label;
  std::string
      others;  // the label without γ ("H = 5, mu = 0.3"): rows of remainder_order group by it
  nlohmann::json setting;  // the point's settings by key (gamma, local_steps, …): rows' data
};

struct ClaimFile {
  std::string id, statement, path;
  std::shared_ptr<const theory::Problem> problem;
  std::string algorithm_name;  // as written ("fedprox"); points[i].algorithm the resolved run
  // Keys last varying fastest: gamma, local_steps, participating, then the algorithm's parameters
  // in theory::parameter_keys() order (the Python Claim's grid with its keys in that order).
  std::vector<ClaimGridPoint> points;
  ClaimQuantity quantity = ClaimQuantity::mean;
  ClaimSource predicted = ClaimSource::first_order;
  std::vector<nlohmann::json> predicted_values;  // ClaimSource::numbers: one per grid point
  // ClaimSource::formula: the formula (its kind checked against quantity) and the problem's
  // blocks it is evaluated on, per grid point (theory/closed_forms/formula_blocks.hpp).
  std::shared_ptr<const theory::Formula> formula;
  std::shared_ptr<theory::FormulaBlocks> blocks;
  ClaimSource measured = ClaimSource::exact;
  int chains = 256, rounds = 2000, burn_in = 200;
  ClaimRule rule = ClaimRule::tolerance;
  double alpha = 0.01, tolerance = 1e-8;
  // hotelling, matrix_agreement: the equivalence margin δ relative to max|prediction| (the
  // Python Claim's `margin`): a row is "equivalent" when every entry is confirmed within it.
  double margin = 0.05;
  double order = 0;  // remainder_order: the slope s0 the remainder's log–log slope must exceed
  // hotelling, matrix_agreement: a known remainder the prediction leaves, relative to
  // max|prediction| (decision.allowance; the Python Claim's `allowance`): every entry may differ
  // from it by that much before the statistic counts (decide.hpp (d), (e)). 0: none.
  double allowance = 0;
  std::string figure_file = "claim.svg";  // the report's figure (claim_figure.hpp)
};

// Throws InputError naming the file and the field ("c.json: grid.gamma[2]: expected a number").
// A relative problem path is read from the claim file's directory.
ClaimFile parse_claim_file(const std::string& path);

}  // namespace fedverify::reports
