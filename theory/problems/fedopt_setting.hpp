// The FedOpt settings of a RunSetting (THEORY O0, O2, O3, O5) in typed form, for both sides of
// --algo fedopt: its closed forms (theory/algorithms/fedopt.*) and its round
// (estimators/samplers/algorithms/fedopt.cpp).
#pragma once

#include "theory/problems/algorithm.hpp"

namespace fedverify::theory {

// The server rule (--server sgd:lr=η_g,momentum=β,nesterov=0|1), THEORY (O0), (O2):
//   heavy ball  m' = βm + Δ,  x' = x − η_g m';   Nesterov  m' = βm + Δ,  x' = x − η_g(Δ + βm').
struct ServerSgd {
  double lr = 1;        // η_g
  double momentum = 0;  // β
  bool nesterov = false;
  bool augmented() const { return momentum != 0.0; }  // the state carries the momentum buffer
  // β_x and c of x' = x − η_g β_x m − η_g c Δ: (β, 1) heavy ball, (β², 1 + β) Nesterov.
  double momentum_in_x() const { return nesterov ? momentum * momentum : momentum; }
  double gain() const { return nesterov ? 1.0 + momentum : 1.0; }
  friend bool operator==(const ServerSgd&, const ServerSgd&) = default;
};
ServerSgd server_sgd(const RunSetting& setting);

// FedExP's server step (THEORY O4, the paper's form: ε as given, not scaled by S or decayed as in
// the authors' code): η_t = max(1, Σ_{c∈S}‖Δ_c‖² / (2S(‖Δ_t‖² + ε))), from the sum of the sampled
// clients' squared pseudo-gradient norms and the squared norm of their average Δ_t.
double fedexp_server_step(double client_spread, double pseudo_gradient_norm2, int sampled,
                          double eps);

// μ_p of --client fedprox:mu=μ_p (THEORY O3); 0 for client sgd.
double client_prox(const RunSetting& setting);

// S: --participating, or N when 0. Throws InputError naming --participating unless 1 ≤ S ≤ N.
int participating_clients(const RunSetting& setting, int clients);

// The validation of --algo fedopt: validate_step, then the optimisers' roles (their names and keys
// were checked by parse_optimiser) and --participating ≥ 0 (S ≤ N is checked where N is known).
void validate_fedopt(const RunSetting& setting);

// Whether the round is linear in the iterate on quadratics, so that theory/algorithms/fedopt has
// its moments: server sgd (any step and momentum), client sgd without momentum or fedprox.
bool has_closed_forms(const RunSetting& setting);
// Throws InputError naming --server or --client (and pointing to simulate) unless it has.
void require_closed_forms(const RunSetting& setting);

}  // namespace fedverify::theory
