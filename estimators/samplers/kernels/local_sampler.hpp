// The problem-kind kernel of the samplers: H local stochastic-gradient steps of one client on one
// block of kLanes chains (estimators/samplers/lanes.hpp),
//
//   y ← y − γ (g_c(y) + ξ)   H times,                                  THEORY (F0), (S0)
//
// where g_c is the client's stochastic gradient drawn from the concrete problem type and ξ an
// optional correction fixed during the round (Scaffold's c − c_i; none for FedAvg). One kernel
// per problem kind (kernels/quadratic.hpp, kernels/logistic.hpp), chosen by make_local_sampler.
//
// Randomness: chain `address.chain + lane`, client c, round t draws from the batch stream
// (seed, purpose, chain + lane, c, t) of theory/base/rng.hpp, so a chain's noise does not depend
// on the block it is in, on K or on the number of threads.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "estimators/samplers/lanes.hpp"
#include "theory/base/rng.hpp"
#include "theory/problems/problem.hpp"

namespace fedverify::estimators {

// Scratch memory of the kernels for one block (one per thread, reused block after block).
struct KernelWorkspace {
  LaneBuffer gradient;            // d × kLanes
  LaneBuffer noise, noise_terms;  // a round's normals z_h and terms R z_h − A b: H·d × kLanes
  std::vector<std::uint32_t> indices, indices_pair;
};

// A client optimiser's local step (THEORY O0, O1): given step h's stochastic gradient g_c(y) of
// the block (d × kLanes), updates the block y in place.
class LocalStep {
 public:
  virtual void operator()(int step, const double* gradient, double* y) const = 0;

 protected:
  ~LocalStep() = default;
};

class LocalSampler {
 public:
  virtual ~LocalSampler() = default;
  // H = `steps` local steps of `client` on the block y (d × kLanes lanes, in place):
  // y ← y − γ(g(y) + ξ), ξ = correction (d × kLanes) or none (nullptr). `address.chain` is the
  // block's first chain and `address.client` = client; lanes ≥ active are idle (their results
  // are discarded).
  virtual void local_steps(int client, BatchAddress address, int active, double gamma, int steps,
                           double* y, const double* correction, KernelWorkspace& ws) const = 0;
  // The same for clients `client` and `client` + 1 on the same block (y, correction for the
  // first; y_next, correction_next for the second). Results: bit-identical to two local_steps
  // calls (a kernel may interleave the two to hide latency; the logistic kernel does).
  virtual void local_steps_pair(int client, BatchAddress address, int active, double gamma,
                                int steps, double* y, const double* correction, double* y_next,
                                const double* correction_next, KernelWorkspace& ws) const {
    local_steps(client, address, active, gamma, steps, y, correction, ws);
    address.client += 1;
    local_steps(client + 1, address, active, gamma, steps, y_next, correction_next, ws);
  }
  // FedProx's local steps (THEORY O3) on the block y (in place), with the same noise draws as
  // local_steps: y ← y − γ(g(y) + μ(y − anchor)), anchor = the round's x_t (d × kLanes).
  // Throws InputError naming --client for a problem kind without them (the default; the
  // quadratic and logistic kernels have them).
  virtual void proximal_local_steps(int client, BatchAddress address, int active, double gamma,
                                    int steps, double mu, const double* anchor, double* y,
                                    KernelWorkspace& ws) const;
  // H local steps of a client optimiser on the block y (in place), with the same noise draws as
  // local_steps: for h = 0 … H − 1, step(h, g_c(y), y). Throws InputError naming --client for a
  // problem kind without them (the default).
  virtual void optimiser_local_steps(int client, BatchAddress address, int active, int steps,
                                     double* y, const LocalStep& step, KernelWorkspace& ws) const;
  // The client's full-batch gradient ∇f_c(x) = E g_c(x) on the block x (d × kLanes) into `out`
  // (d × kLanes): Mime's control variate c (THEORY-Mime (MI0)). Throws InputError naming --algo
  // for a problem kind without it (the default; the quadratic and linear-sa kernels have it).
  virtual void mean_gradient(int client, const double* x, double* out) const;
  // Mime's local steps (THEORY-Mime (MI0)) on the block y (in place):
  //   y ← y − γ(s·(g_c(y; ζ_h) − g_c(anchor; ζ_h)) + ξ),   h = 0 … H − 1,
  // both gradients of step h on the same draw ζ_h (the draws of local_steps), s = `scale`,
  // ξ = correction (d × kLanes), anchor the round's x_t. Throws InputError naming --algo for a
  // problem kind without them (the default; the kernels of affine fields — quadratic, where the
  // additive noise cancels, and linear-sa — have them).
  virtual void control_variate_local_steps(int client, BatchAddress address, int active,
                                           double gamma, int steps, double scale,
                                           const double* anchor, const double* correction,
                                           double* y, KernelWorkspace& ws) const;
};

// The kernel of the problem's kind; throws InputError naming --problem for an unsupported kind.
std::unique_ptr<LocalSampler> make_local_sampler(const theory::Problem& problem);

}  // namespace fedverify::estimators
