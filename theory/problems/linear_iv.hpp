// Linear instrumental-variable GMM games (THEORY M5): client i holds n_i samples (x, z, y) of a
// treatment x ∈ ℝ^{d_x}, an instrument z ∈ ℝ^{d_z} and an outcome y, the model is
// g(x; θ) = θᵀφ(x) and the adversary's function class is f(z; τ) = τᵀψ(z), so that the DeepGMM
// game (3.14) with a fixed weighting point θ̃ becomes the quadratic game
//   U_i(θ, τ) = τᵀ(b_i − G_i θ) − ¼ τᵀ W_i τ,
//   G_i = (1/n_i) Σ_k ψ(z_k) φ(x_k)ᵀ  (q × p),   b_i = (1/n_i) Σ_k ψ(z_k) y_k,
//   W_i = (1/n_i) Σ_k ψ(z_k) ψ(z_k)ᵀ (y_k − θ̃ᵀφ(x_k))²,
// i.e. in the notation of quadratic_game.hpp A_i = 0, B_i = −G_iᵀ, C_i = ½ W_i, a_i = 0,
// c_i = −b_i, with no additive noise (the stochasticity of FedSGDA is its minibatches,
// estimators/samplers/games/fedsgda.hpp). The federated game (3.20) averages the U_i; its
// equilibrium θ-part is the GMM estimator of the averaged moments (theory/closed_forms/
// linear_iv_gmm.hpp, M5).
#pragma once

#include <string>
#include <vector>

#include "theory/base/linalg.hpp"
#include "theory/problems/quadratic_game.hpp"

namespace fedverify::theory {

// Feature maps, applied to each sample's vector v: linear φ(v) = v; affine (1, v); quadratic
// (1, v, v∘v) (element-wise squares).
enum class FeatureMap { linear, affine, quadratic };
FeatureMap parse_feature_map(const std::string& name, const std::string& field);
std::string to_string(FeatureMap map);
int feature_dim(FeatureMap map, int input_dim);
// The features of the rows of `samples` (n × input_dim) as the rows of an n × feature_dim matrix.
Matrix apply_features(FeatureMap map, const Matrix& samples);

struct LinearIvClient {
  Matrix x;  // n_i × d_x treatments
  Matrix z;  // n_i × d_z instruments
  Vector y;  // n_i outcomes
};

class LinearIvGame {
 public:
  // Validates shapes (the same d_x, d_z on every client, n_i ≥ 1 rows in x, z and y), finiteness,
  // θ̃'s length (empty: θ̃ = 0) and identification: InputError naming the field, e.g.
  // "clients[2].z: 40 rows, but y has 41", or "instruments: the averaged G (3 × 2) has rank 1 <
  // p = 2, so θ is not identified".
  LinearIvGame(std::vector<LinearIvClient> clients, FeatureMap phi, FeatureMap psi,
               Vector theta_tilde = {});

  int theta_dim() const { return p_; }
  int tau_dim() const { return q_; }
  int num_clients() const { return static_cast<int>(clients_.size()); }
  FeatureMap phi() const { return phi_; }
  FeatureMap psi() const { return psi_; }
  const Vector& theta_tilde() const { return theta_tilde_; }
  const LinearIvClient& client(int i) const { return clients_[i]; }

  // Per-sample pieces of client i, rows k = 1..n_i: φ(x_k), ψ(z_k), y_k and the weight
  // (y_k − θ̃ᵀφ(x_k))² of W_i; a minibatch's G, b, W are their averages over its rows.
  const Matrix& phi_rows(int i) const { return moments_[i].phi; }
  const Matrix& psi_rows(int i) const { return moments_[i].psi; }
  const Vector& weights(int i) const { return moments_[i].weight; }

  // G_i, b_i, W_i over all of client i's samples, and their averages over clients (the
  // federated game averages the clients' objectives, each with weight 1/N).
  const Matrix& g(int i) const { return moments_[i].g; }
  const Vector& b(int i) const { return moments_[i].b; }
  const Matrix& w(int i) const { return moments_[i].w; }
  Matrix mean_g() const;
  Vector mean_b() const;
  Matrix mean_w() const;

  // The quadratic game of the full-batch objectives (A_i = 0, B_i = −G_iᵀ, C_i = ½W_i, a_i = 0,
  // c_i = −b_i, S_i = 0).
  const QuadraticGame& game() const { return game_; }

 private:
  struct Moments {
    Matrix phi, psi;
    Vector weight;
    Matrix g, w;
    Vector b;
  };
  std::vector<LinearIvClient> clients_;
  FeatureMap phi_, psi_;
  int p_ = 0, q_ = 0;
  Vector theta_tilde_;
  std::vector<Moments> moments_;
  QuadraticGame game_;
};

}  // namespace fedverify::theory
