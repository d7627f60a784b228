#include "verify/claims/problems/linear_sa_problems.hpp"

#include <fmt/format.h>

#include <memory>
#include <stdexcept>

#include "theory/problems/diabetes_data.hpp"
#include "theory/problems/garnet.hpp"
#include "theory/problems/problem_io.hpp"

namespace fedverify::claims {
namespace {

std::shared_ptr<const theory::Problem> parsed(const nlohmann::json& file, const char* source) {
  return std::shared_ptr<const theory::Problem>(theory::parse_problem(file, source));
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
