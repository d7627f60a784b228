#include "reports/conformance/oracle.hpp"

#include <fmt/format.h>

#include <Eigen/Eigenvalues>
#include <utility>

#include "theory/base/input_error.hpp"
#include "theory/base/rng.hpp"
#include "theory/problems/problem_io.hpp"

namespace fedverify::reports {

nlohmann::json run_message(const ConformanceRun& run, int dim, int clients) {
  nlohmann::json x0 = nlohmann::json::array();
  for (Eigen::Index k = 0; k < run.x0.cols(); ++k) {
    x0.push_back(theory::to_json(Vector(run.x0.col(k))));
  }
  nlohmann::json out = {{"type", "run"},
                        {"algorithm", run.algorithm},
                        {"dim", dim},
                        {"clients", clients},
                        {"gamma", run.gamma},
                        {"local_steps", run.local_steps},
                        {"participating", run.participating},
                        {"server_lr", run.server.lr},
                        {"server_momentum", run.server.momentum},
                        {"server_nesterov", run.server.nesterov},
                        {"chains", run.chains},
                        {"rounds", run.rounds},
                        {"seed", run.seed},
                        {"x0", std::move(x0)}};
  if (run.algorithm == "fedprox") out["mu"] = run.mu;
  if (run.per_model) out["chain"] = run.first_chain;
  // Every key of the server's rule, given or default: {"name": "adam", "lr": 0.01, …}.
  nlohmann::json server = {{"name", run.server_optimiser.name}};
  for (const auto& kind : theory::optimiser_kinds()) {
    if (kind.role != theory::OptimiserRole::server || kind.name != run.server_optimiser.name) {
      continue;
    }
    for (const auto& key : kind.keys) {
      server[std::string(key.name)] = run.server_optimiser.value(key.name);
    }
  }
  out["server_optimiser"] = std::move(server);
  out["client_momentum"] = run.client_momentum;
  out["weight_decay"] = run.weight_decay;
  out["client_weights"] =
      run.client_weights.empty()
          ? std::vector<double>(static_cast<std::size_t>(clients), 1.0 / clients)
          : run.client_weights;
  return out;
}

ConformanceOracle::ConformanceOracle(const theory::QuadraticProblem& problem, ConformanceRun run,
                                     std::string source,
                                     std::function<void(int, const Matrix&)> record)
    : problem_(problem),
      run_(std::move(run)),
      source_(std::move(source)),
      record_(std::move(record)),
      requests_(static_cast<std::size_t>(run_.chains) * problem.num_clients(), 0) {
  for (int c = 0; c < problem.num_clients(); ++c) {
    const Eigen::SelfAdjointEigenSolver<Matrix> eig(problem.client(c).noise_cov);
    roots_.push_back(eig.eigenvectors() * eig.eigenvalues().cwiseMax(0).cwiseSqrt().asDiagonal() *
                     eig.eigenvectors().transpose());
  }
}

Matrix ConformanceOracle::gradient(const std::vector<int>& clients, const Matrix& x) {
  const int d = dim(), n = this->clients(), chains = run_.chains;
  if (finished()) {
    throw InputError(fmt::format("{}: a gradient was requested after the run ended (round {})",
                                 source_, reported_));
  }
  if (x.rows() != d || x.cols() != chains) {
    throw InputError(fmt::format("{}: a gradient request's x must be {} chains of {} numbers",
                                 source_, chains, d));
  }
  if (!x.allFinite()) {
    diverge();
    throw InputError(
        fmt::format("{}: a gradient was requested at a non-finite x: diverged in round {}", source_,
                    diverged_));
  }
  const bool one = clients.size() == 1;
  if (!one && static_cast<int>(clients.size()) != chains) {
    throw InputError(fmt::format(
        "{}: a gradient request's client must be one index or {} of them (one per chain)", source_,
        chains));
  }
  Matrix g(d, chains);
  Vector u(d);
  for (int k = 0; k < chains; ++k) {
    const int i = clients[one ? 0 : k];
    if (i < 0 || i >= n) {
      throw InputError(
          fmt::format("{}: a gradient request's client must be in [0, {}), got {}", source_, n, i));
    }
    const int chain = run_.first_chain + k;  // the check's chain index (per-model mode: one)
    estimators::Stream s(run_.seed, estimators::Purpose::gradient_noise,
                         static_cast<std::uint64_t>(chain), static_cast<std::uint64_t>(i),
                         requests_[static_cast<std::size_t>(k) * n + i]++);
    for (int j = 0; j < d; ++j) u(j) = s.normal();
    g.col(k) = problem_.gradient(i, x.col(k)) + roots_[i] * u;
    if (chain < traced_chains_) traced_.push_back({chain, i, x.col(k), g.col(k), reported_ + 1});
  }
  return g;
}

void ConformanceOracle::report(const Matrix& x) {
  if (finished()) {
    throw InputError(fmt::format("{}: a round was reported after the run ended (round {} of {})",
                                 source_, reported_, run_.rounds));
  }
  if (x.rows() != dim() || x.cols() != run_.chains) {
    throw InputError(fmt::format("{}: round {}'s x must be {} chains of {} numbers", source_,
                                 reported_ + 1, run_.chains, dim()));
  }
  ++reported_;
  if (!x.allFinite() || x.cwiseAbs().maxCoeff() > kConformanceDivergence) {
    diverged_ = reported_;
    return;
  }
  record_(reported_, x);
}

void ConformanceOracle::require_complete(const std::string& why) const {
  if (diverged_ == 0 && reported_ != run_.rounds) {
    throw InputError(fmt::format("{}: the implementation {} after {} of {} rounds", source_, why,
                                 reported_, run_.rounds));
  }
}

}  // namespace fedverify::reports
