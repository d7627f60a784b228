#include "estimators/samplers/algorithms/scaffold.hpp"

#include <memory>
#include <stdexcept>

#include "theory/base/input_error.hpp"

namespace fedverify::estimators {

Matrix scaffold_correction(const ChainEnsemble& ensemble, int client) {
  if (ensemble.options().algorithm != theory::Algorithm::scaffold) {
    throw InputError("control_variate: only Scaffold has control variates");
  }
  if (client < 0 || client >= ensemble.num_clients()) {
    throw std::out_of_range("control_variate: no such client");
  }
  const std::vector<Matrix>& auxiliary = ensemble.auxiliary();
  return auxiliary.at(scaffold_layout::kServer) - auxiliary.at(scaffold_layout::client(client));
}

namespace {

const bool registered =
    RoundRegistry::add("scaffold", std::make_shared<ScaffoldRound<StandardScaffold>>());

}  // namespace

}  // namespace fedverify::estimators
