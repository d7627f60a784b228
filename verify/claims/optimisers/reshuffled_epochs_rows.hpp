// The shared pieces of claim optimisers.reshuffled-epochs (THEORY (A4)): the run setting of its
// rows and the simulated scale-law row on ls-epochs-large, a problem too large to enumerate.
#pragma once

#include "theory/problems/algorithm.hpp"
#include "theory/problems/linear_sa_problem.hpp"
#include "verify/claims/claim.hpp"

namespace fedverify::claims::optimisers {

// FedAvg (server_lr = 1) or FedOpt with server sgd at `server_lr`, H = `steps`.
theory::RunSetting epochs_setting(double gamma, int steps, double server_lr = 1.0);

// η_g = η/(γLH): the server step that keeps the effective step ηL fixed as γ changes.
double fixed_eta_server_lr(const theory::LinearSaProblem& problem, double eta, double gamma,
                           int steps);

// ls-epochs-large (N = 10, n_c = 32, d = 8, H = 32: 2³² sets a pass, simulated only): both sample
// orders at γL = 0.02 and 0.01 with the same ηL = `eta`; the slope of E‖x − x*‖² confirmed > 1
// reshuffled and < 1 with replacement (kit::error_slope_test, α/2 each). With
// `with_replacement` the "reshuffled" chains are simulated on the with-replacement problem (a
// sampler that ignores the order). Seeds: kit::row_seed(ctx, claim_id, …).
Row scale_law_row(const Context& ctx, const char* claim_id, double eta, bool with_replacement,
                  double alpha);

}  // namespace fedverify::claims::optimisers
