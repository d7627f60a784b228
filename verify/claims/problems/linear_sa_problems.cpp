#include "verify/claims/problems/linear_sa_problems.hpp"

#include <fmt/format.h>

#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "theory/problems/diabetes_data.hpp"
#include "theory/problems/garnet.hpp"
#include "theory/problems/logistic_data.hpp"
#include "theory/problems/multinomial_data.hpp"
#include "theory/problems/problem_io.hpp"

namespace fedverify::claims {
namespace {

std::shared_ptr<const theory::Problem> parsed(const nlohmann::json& file, const char* source) {
  return std::shared_ptr<const theory::Problem>(theory::parse_problem(file, source));
}

constexpr int kDigitsClients = 100;
constexpr double kDigitsAlpha = 0.5;
constexpr double kDigitsL2 = 0.1;
constexpr std::uint64_t kDigitsSeed = 7;

// z-scores every column of `m` in place (population standard deviation); a constant column is
// only centred.
void zscore_columns(Matrix& m) {
  for (Eigen::Index j = 0; j < m.cols(); ++j) {
    m.col(j).array() -= m.col(j).mean();
    const double sd = std::sqrt(m.col(j).squaredNorm() / static_cast<double>(m.rows()));
    if (sd > 0) m.col(j) /= sd;
  }
}

NamedProblem digits_problem() {
  const std::string path = theory::sklearn_table_path("digits.csv.gz");
  const theory::ClassificationData table = theory::read_digits(path);
  Matrix pixels = table.features;
  zscore_columns(pixels);
  Matrix features(pixels.rows(), pixels.cols() + 1);
  features << pixels, Vector::Ones(pixels.rows());  // the intercept column
  Matrix target(table.samples(), 1);
  for (int j = 0; j < table.samples(); ++j) target(j, 0) = table.labels[j];
  zscore_columns(target);
  const std::vector<std::vector<int>> rows = theory::dirichlet_class_assignment(
      table.labels, table.classes, kDigitsClients, kDigitsAlpha, kDigitsSeed);
  std::vector<theory::LeastSquaresClient> clients;
  for (const std::vector<int>& r : rows) {
    theory::LeastSquaresClient c;
    c.features = features(r, Eigen::all);
    c.targets = target(r, 0);
    clients.push_back(std::move(c));
  }
  return {"ls-digits",
          fmt::format("least squares on digits (1797 × 64, z-scored, intercept: d = 65; target the "
                      "digit), N = {} clients by Dirichlet({}) digits (seed {}), λ = {}, B = 1",
                      kDigitsClients, kDigitsAlpha, kDigitsSeed, kDigitsL2),
          std::make_shared<theory::LinearSaProblem>(std::move(clients), kDigitsL2, 1),
          {{"name", "digits-least-squares"},
           {"table", path},
           {"clients", kDigitsClients},
           {"split", "dirichlet"},
           {"alpha", kDigitsAlpha},
           {"seed", kDigitsSeed},
           {"l2", kDigitsL2},
           {"batch_size", 1},
           {"code", "verify/claims/problems/linear_sa_problems.cpp"}}};
}

}  // namespace

const LinearSaDefaults& default_linear_sa_problems() {
  static const LinearSaDefaults defaults = [] {
    LinearSaDefaults v;
    const theory::GarnetOptions g = theory::garnet_td_preset_options();
    const nlohmann::json td = theory::garnet_td_preset();
    const nlohmann::json ls = theory::diabetes_preset();
    v.garnet_td = {
        "td-garnet",
        fmt::format("federated TD(0) on a Garnet MDP ({} states, {} actions, branching "
                    "{}, {} features, ρ = {}), N = {} clients, kernel heterogeneity {}, "
                    "reward heterogeneity {}, B = {} (seed {})",
                    g.states, g.actions, g.branching, g.features, g.discount, g.clients,
                    g.kernel_heterogeneity, g.reward_heterogeneity, g.batch_size, g.seed),
        parsed(td, "td-garnet preset"), td.at("generator")};
    theory::GarnetOptions small = g;
    small.states = 10;
    small.features = 3;
    small.clients = 4;
    const nlohmann::json td_small = theory::garnet_td_json(small);
    v.garnet_td_small = {
        "td-garnet-small",
        fmt::format("td-garnet's generator with {} states, {} features, N = {} clients (seed {})",
                    small.states, small.features, small.clients, small.seed),
        parsed(td_small, "td-garnet-small"), td_small.at("generator")};
    const theory::DiabetesOptions d = theory::diabetes_preset_options();
    v.diabetes = {"ls-diabetes",
                  fmt::format("least squares on diabetes (442 × 10), N = {} clients ({} split, α = "
                              "{}), B = 1 (seed {})",
                              d.clients, theory::to_string(d.split), d.alpha, d.seed),
                  parsed(ls, "ls-diabetes preset"), ls.at("generator")};
    v.digits = digits_problem();
    return v;
  }();
  return defaults;
}

const theory::LinearSaProblem& as_linear_sa(const NamedProblem& p) {
  const auto* lsa = dynamic_cast<const theory::LinearSaProblem*>(p.problem.get());
  if (lsa == nullptr) throw std::logic_error(p.name + " is not a linear-sa problem");
  return *lsa;
}

}  // namespace fedverify::claims
