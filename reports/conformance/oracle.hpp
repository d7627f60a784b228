// fedverify's side of one conformance run (docs/DESIGN-EXTENSIONS.md, "Conformance"): the
// stochastic-gradient oracle ∇f_i(x) + L_i u, u from fedverify's own counter-addressed streams
// (seed, gradient_noise, chain k, client i, request j of that chain and client), and the recorder
// of the iterates the implementation reports after every round.
//
// The implementation under test drives the run: it asks for gradients and reports rounds, through
// a transport — a child process speaking JSON lines (process_implementation.hpp) or a Python
// callable (python/src/conformance.cpp) — that calls this class. The oracle is the same for both,
// so a seed means the same noise whichever way the implementation is attached.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "reports/conformance/localise.hpp"
#include "theory/base/linalg.hpp"
#include "theory/problems/fedopt_setting.hpp"
#include "theory/problems/optimiser.hpp"
#include "theory/problems/quadratic_problem.hpp"

namespace fedverify::reports {

// What the implementation is told: the run message of the protocol.
struct ConformanceRun {
  std::string algorithm;  // "fedavg", "scaffold" or "fedprox"
  double gamma = 0;
  int local_steps = 1;
  int participating = 0;     // S (N when all clients take part)
  double mu = 0;             // FedProx's μ (fedprox only)
  theory::ServerSgd server;  // η_g, β, Nesterov of the server's rule (default: plain averaging)
  // The server's rule as an optimiser of THEORY (O0)-(O2) (sgd: the same as `server`; adam, …:
  // the simulated reference, simulated_reference.hpp), and the client's momentum β_c (client sgd
  // with momentum, its buffer reset every round).
  theory::OptimiserSpec server_optimiser = theory::default_server();
  double client_momentum = 0;
  double weight_decay = 0;  // λ of every local step (THEORY C1)
  // p_c of the server's average (THEORY (A1)), in the run message as "client_weights"; empty:
  // 1/N each.
  std::vector<double> client_weights;
  int chains = 0;  // K
  int rounds = 0;  // T
  // Per-model mode (--per-model): this session is the one chain `first_chain` of the check (K = 1;
  // its noise is that chain's, and the run message says "chain": first_chain).
  int first_chain = 0;
  bool per_model = false;
  std::uint64_t seed = 0;
  Matrix x0;  // d × K
};
nlohmann::json run_message(const ConformanceRun& run, int dim, int clients);

// Iterates beyond this (or not finite) end the run as diverged.
inline constexpr double kConformanceDivergence = 1e100;

class ConformanceOracle {
 public:
  // `source` names the implementation in error messages ("--exec", "implementation");
  // record(t, x) receives round t's iterates (d × K), t = 1 … T, until the run diverges.
  ConformanceOracle(const theory::QuadraticProblem& problem, ConformanceRun run, std::string source,
                    std::function<void(int, const Matrix&)> record);

  const ConformanceRun& run() const { return run_; }
  int dim() const { return problem_.dim(); }
  int clients() const { return problem_.num_clients(); }

  // One stochastic gradient per chain at x (d × K) of client clients[k] (or clients[0] for every
  // chain when it has one entry). Throws InputError naming the source for a bad client index or
  // shape, or a request after the run ended; a non-finite x ends the run as diverged (diverge())
  // and throws InputError saying so (a transport stops there: diverged_round() > 0).
  Matrix gradient(const std::vector<int>& clients, const Matrix& x);

  // The implementation's state left the finite numbers during round rounds_reported() + 1 (a
  // gradient request at a non-finite x): the run ends as diverged at that round.
  void diverge() { diverged_ = reported_ + 1; }

  // The iterates after the next round (d × K; +∞ entries allowed: divergence). Throws InputError
  // naming the source for a bad shape or a round beyond T.
  void report(const Matrix& x);

  // Keeps every gradient request of the chains 0 … chains − 1, in the order made (the first-round
  // replay of localise.hpp); off (0) by default.
  void trace_chains(int chains) { traced_chains_ = chains; }
  const std::vector<TracedGradient>& traced() const { return traced_; }

  int rounds_reported() const { return reported_; }
  int diverged_round() const { return diverged_; }  // 0: did not diverge
  bool finished() const { return diverged_ > 0 || reported_ == run_.rounds; }

  // The implementation stopped: throws InputError naming the source unless all T rounds were
  // reported or the run diverged (`why` says how it stopped, e.g. "exited with status 1").
  void require_complete(const std::string& why) const;

 private:
  const theory::QuadraticProblem& problem_;
  ConformanceRun run_;
  std::string source_;
  std::function<void(int, const Matrix&)> record_;
  std::vector<Matrix> roots_;            // L_c L_cᵀ = S_c
  std::vector<std::uint64_t> requests_;  // per (chain, client)
  int reported_ = 0;
  int diverged_ = 0;
  int traced_chains_ = 0;
  std::vector<TracedGradient> traced_;
};

// The implementation under test, attached: `run` carries out the whole run described by
// oracle.run() (asking oracle for gradients, reporting every round) and returns; errors name it
// by `source`.
// A worker of per-model mode: runs one single-chain session after another (a child process kept
// alive between them, so that a framework is imported once), then finish() ends it (throws
// InputError naming the source when it exits badly).
class ModelWorker {
 public:
  virtual ~ModelWorker() = default;
  virtual void run(ConformanceOracle& oracle) = 0;
  virtual void finish() = 0;
};

struct Implementation {
  std::string source;  // "--exec" (a child process) or "implementation" (a Python callable)
  std::function<void(ConformanceOracle&)> run;
  // Per-model mode: a new worker (absent: one `run` per chain, one at a time).
  std::function<std::unique_ptr<ModelWorker>()> worker;
};

}  // namespace fedverify::reports
