#include "reports/conformance/neighbours.hpp"

#include <fmt/format.h>

#include "theory/base/input_error.hpp"
#include "theory/problems/optimiser.hpp"
#include "theory/problems/scaffold_setting.hpp"

namespace fedverify::reports {
namespace {

const theory::Algorithm kFedOpt{"fedopt"};

// FedOpt with the client optimiser of the protocol (sgd, or fedprox with its μ), server sgd with
// `server`'s rule, S clients per round (0: all).
theory::RunSetting fedopt_step(const ConformanceProtocol& p, const ConformanceSpec& spec,
                               int local_steps, const theory::ServerSgd& server,
                               int participating) {
  theory::RunSetting s{spec.step.gamma, local_steps};
  const auto field = [](std::string_view key) { return std::string(key); };
  s.client = p.algorithm == "fedprox" ? theory::make_optimiser(theory::OptimiserRole::client,
                                                               "fedprox", {{"mu", p.mu}}, field)
                                      : theory::default_client();
  s.server = theory::make_optimiser(
      theory::OptimiserRole::server, "sgd",
      {{"lr", server.lr}, {"momentum", server.momentum}, {"nesterov", server.nesterov ? 1.0 : 0.0}},
      field);
  s.participating = participating < p.clients ? participating : 0;
  return s;
}

}  // namespace

std::vector<NeighbourLaw> neighbour_laws(const ConformanceProtocol& p,
                                         const ConformanceSpec& spec) {
  const int h = spec.step.local_steps;
  std::vector<NeighbourLaw> out;
  if (p.weight_decay != 0.0) {  // THEORY (C1): the declared decay not applied
    out.push_back({fmt::format("the weight decay λ = {:g} is not applied", p.weight_decay),
                   spec.algorithm, spec.step, true});
  }
  if (p.algorithm == "scaffold") {
    out.push_back(
        {"Scaffold's correction c − c_i is never applied: the local steps are plain SGD "
         "(FedAvg's law)",
         kFedOpt, fedopt_step(p, spec, h, p.server, p.participating)});
    // THEORY (S9): the server's global step η_g ignored, or one applied where none is declared.
    const auto scaffold_with = [&](double eta) {
      theory::RunSetting s = spec.step;
      s.parameters.insert_or_assign(std::string(theory::kServerLrKey), std::vector<double>{eta});
      return s;
    };
    if (p.server.lr != 1.0) {
      out.push_back({fmt::format("the server step η_g = {:g} is ignored: the server averages "
                                 "(x ← mean y_i)",
                                 p.server.lr),
                     theory::Algorithm::scaffold, scaffold_with(1.0)});
    } else {
      for (const double eta : {0.5, 1.5, 2.0}) {
        out.push_back({fmt::format("a server step of {:g} (x ← x + {:g} · mean(y_i − x)) instead "
                                   "of 1",
                                   eta, eta),
                       theory::Algorithm::scaffold, scaffold_with(eta)});
      }
    }
    return out;
  }
  if (p.algorithm == "fedprox") {
    ConformanceProtocol plain = p;
    plain.algorithm = "fedavg";
    out.push_back({"the proximal term is missing (FedAvg's law)", kFedOpt,
                   fedopt_step(plain, spec, h, p.server, p.participating)});
  }
  for (const int other : {h - 1, h + 1}) {
    if (other >= 1) {
      out.push_back({fmt::format("{} local steps instead of H = {}", other, h), kFedOpt,
                     fedopt_step(p, spec, other, p.server, p.participating)});
    }
  }
  if (p.participating == p.clients && p.clients > 1) {
    out.push_back({"one client trained per round instead of all N (as FedLab #320)", kFedOpt,
                   fedopt_step(p, spec, h, p.server, 1)});
  }
  const theory::ServerSgd plain{};
  if (p.server == plain) {
    for (const double eta : {0.5, 1.5, 2.0}) {
      out.push_back(
          {fmt::format("a server step of {:g} (x ← x + {:g} · mean(y_i − x)) instead of 1", eta,
                       eta),
           kFedOpt, fedopt_step(p, spec, h, {eta, 0, false}, p.participating)});
    }
    return out;
  }
  // A declared server rule (THEORY O2): the rule ignored, its momentum ignored or its buffer reset
  // every round (m = 0 before each step: x ← x − η_g c Δ, c = ServerSgd::gain()), η_g ignored.
  out.push_back({"the server rule is ignored: plain averaging (η_g = 1, no momentum)", kFedOpt,
                 fedopt_step(p, spec, h, plain, p.participating)});
  if (p.server.momentum != 0.0) {
    const double reset = p.server.lr * p.server.gain();
    if (reset != 1.0) {  // (1: plain averaging, above)
      out.push_back(
          {fmt::format("the server's momentum buffer is reset every round{}: x ← x − {:g} · "
                       "mean(x − y_i)",
                       p.server.nesterov ? "" : " (or β ignored)", reset),
           kFedOpt, fedopt_step(p, spec, h, {reset, 0, false}, p.participating)});
    }
    if (p.server.nesterov && p.server.lr != 1.0) {
      out.push_back({fmt::format("β is ignored: x ← x − {:g} · mean(x − y_i)", p.server.lr),
                     kFedOpt, fedopt_step(p, spec, h, {p.server.lr, 0, false}, p.participating)});
    }
    if (p.server.lr != 1.0) {
      out.push_back(
          {fmt::format("η_g is ignored (1 instead of {:g}) with the momentum kept", p.server.lr),
           kFedOpt,
           fedopt_step(p, spec, h, {1, p.server.momentum, p.server.nesterov}, p.participating)});
    }
  }
  return out;
}

std::vector<std::string> fitting_neighbours(
    const theory::QuadraticProblem& problem, const theory::QuadraticProblem& without_decay,
    const std::vector<NeighbourLaw>& neighbours,
    const std::function<bool(const theory::ExactMoments&)>& fits) {
  std::vector<std::string> out;
  for (const NeighbourLaw& n : neighbours) {
    try {
      const theory::QuadraticProblem& q = n.without_weight_decay ? without_decay : problem;
      if (fits(theory::exact_moments(q, n.algorithm, n.step))) out.push_back(n.what);
    } catch (const InputError&) {
      // no stationary law there (the neighbour's round map does not contract): it cannot fit
    }
  }
  return out;
}

}  // namespace fedverify::reports
