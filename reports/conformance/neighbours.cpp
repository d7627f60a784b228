#include "reports/conformance/neighbours.hpp"

#include <fmt/format.h>

#include "theory/base/input_error.hpp"
#include "theory/problems/optimiser.hpp"

namespace fedverify::reports {
namespace {

const theory::Algorithm kFedOpt{"fedopt"};

// FedOpt with the client optimiser of the protocol (sgd, or fedprox with its μ), server sgd at
// step `server_step`, S clients per round (0: all).
theory::RunSetting fedopt_step(const ConformanceProtocol& p, const ConformanceSpec& spec,
                               int local_steps, double server_step, int participating) {
  theory::RunSetting s{spec.step.gamma, local_steps};
  const auto field = [](std::string_view key) { return std::string(key); };
  s.client = p.algorithm == "fedprox" ? theory::make_optimiser(theory::OptimiserRole::client,
                                                               "fedprox", {{"mu", p.mu}}, field)
                                      : theory::default_client();
  s.server =
      theory::make_optimiser(theory::OptimiserRole::server, "sgd", {{"lr", server_step}}, field);
  s.participating = participating < p.clients ? participating : 0;
  return s;
}

}  // namespace

std::vector<NeighbourLaw> neighbour_laws(const ConformanceProtocol& p,
                                         const ConformanceSpec& spec) {
  const int h = spec.step.local_steps;
  std::vector<NeighbourLaw> out;
  if (p.algorithm == "scaffold") {
    out.push_back(
        {"Scaffold's correction c − c_i is never applied: the local steps are plain SGD "
         "(FedAvg's law)",
         kFedOpt, fedopt_step(p, spec, h, 1, p.participating)});
    return out;
  }
  if (p.algorithm == "fedprox") {
    ConformanceProtocol plain = p;
    plain.algorithm = "fedavg";
    out.push_back({"the proximal term is missing (FedAvg's law)", kFedOpt,
                   fedopt_step(plain, spec, h, 1, p.participating)});
  }
  for (const int other : {h - 1, h + 1}) {
    if (other >= 1) {
      out.push_back({fmt::format("{} local steps instead of H = {}", other, h), kFedOpt,
                     fedopt_step(p, spec, other, 1, p.participating)});
    }
  }
  if (p.participating == p.clients && p.clients > 1) {
    out.push_back({"one client trained per round instead of all N (as FedLab #320)", kFedOpt,
                   fedopt_step(p, spec, h, 1, 1)});
  }
  for (const double eta : {0.5, 1.5, 2.0}) {
    out.push_back(
        {fmt::format("a server step of {:g} (x ← x + {:g} · mean(y_i − x)) instead of 1", eta, eta),
         kFedOpt, fedopt_step(p, spec, h, eta, p.participating)});
  }
  return out;
}

std::vector<std::string> fitting_neighbours(
    const theory::QuadraticProblem& problem, const std::vector<NeighbourLaw>& neighbours,
    const std::function<bool(const theory::ExactMoments&)>& fits) {
  std::vector<std::string> out;
  for (const NeighbourLaw& n : neighbours) {
    try {
      if (fits(theory::exact_moments(problem, n.algorithm, n.step))) out.push_back(n.what);
    } catch (const InputError&) {
      // no stationary law there (the neighbour's round map does not contract): it cannot fit
    }
  }
  return out;
}

}  // namespace fedverify::reports
