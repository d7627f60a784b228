// FedPer (docs/THEORY.md (A7); Arivazhagan et al., "Federated Learning with Personalization
// Layers", 2019; the thesis §2.2.3: "a shared base and personalized layers. The base layers are
// trained via FedAvg, while the personalized layers are updated using local data with SGD"), on a
// model whose last k coordinates are personal (--personal-dims k): client c keeps v_c (0 at
// t = 0); from the server's shared block w it runs H local SGD steps on its whole loss,
//     y ← (w, v_c);  y ← y − γ g_c(y)  (H times);  v_c ← y_personal,
// and the server averages the shared blocks, w ← Σ_c p_c y_c,shared. The reported model is
// x = (w, Σ_c p_c v_c). On a linear (quadratic) model this is the proxy of the seed's personal
// layers: the personal block is the "head", the shared block the "base".
//
// The objective it targets is the personalised F(w, v_1, …, v_N) = Σ_c p_c f_c(w, v_c), whose
// minimiser z* has F* ≤ min_x f(x) (FedAvg's model is the restriction v_c = v).
#pragma once

#include "theory/closed_forms/exact.hpp"
#include "theory/problems/fedper_setting.hpp"

namespace fedverify::theory {

// The round map on the minimal state z = (w, v_1, …, v_N) (size (d − k) + Nk) of a quadratic
// problem, divided by γ: with E_c z = (w, v_c), L_c y = (p_c y_shared into w, y_personal into v_c),
// P_c A_c = (I − B_c^H)/γ and Q̂_c = Σ_h B_c^h S_c B_c^h,
//     D = Σ_c L_c P_cA_c E_c,   r = Σ_c L_c P_cA_c b_c,   G = γ Σ_c L_c Q̂_c L_cᵀ.    THEORY (A7)
// (Σ_c L_c E_c = I: the map is z − γ(Dz − r) + noise.)
AffineRoundMap fedper_round_map(const QuadraticProblem& problem, const RunSetting& setting);

// The minimiser z* of F(w, v_1, …, v_N) = Σ_c p_c f_c(w, v_c) in the same coordinates.
Vector fedper_personalised_optimum(const QuadraticProblem& problem, int personal_dims);

// The exact stationary law of the reported stacked state (x, (0, v_1), …, (0, v_N)) (size
// d(N + 1); x = (w, Σ_c p_c v_c); each client's block holds v_c in its last k rows, zeros in the
// shared rows, as the sampler keeps it), from the minimal state's mean D⁻¹r and Lyapunov
// covariance. InputError naming --gamma when the map does not contract, --personal-dims unless
// 1 ≤ k < d.                                                                  THEORY (A7)
ExactMoments fedper_exact_state(const QuadraticProblem& problem, const RunSetting& setting);

// The x block of fedper_exact_state.                                         THEORY (A7)
ExactMoments fedper_exact(const QuadraticProblem& problem, const RunSetting& setting);

}  // namespace fedverify::theory
