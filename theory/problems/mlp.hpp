// Small multi-layer perceptrons for the DeepGMM game (THEORY M6, issue 15): the function classes
// g(x; θ) and f(z; τ) of (3.14), with a hand-written forward and backward pass on Eigen.
//
// Why hand-written on Eigen and not a library: no Debian package offers a small, dependency-free,
// deterministic automatic differentiation in C++. The one packaged C++ deep-learning library
// (libtorch-dev 1.13, bookworm) is large (it pulls in the PyTorch runtime and its BLAS/OpenMP
// stack), and its CPU kernels do not promise bit-identical results across thread counts, which
// fedverify requires of every seeded computation. The networks here are two or three dense
// layers with LeakyReLU, whose backward pass is a few matrix products, so it is written out and
// checked against central finite differences (mlp_test.cpp).
//
// Layout. A network with widths w_0 (input), w_1, …, w_L = 1 (output) has L dense layers; layer
// l maps a_{l−1} ∈ ℝ^{w_{l−1}} to u_l = W_l a_{l−1} + b_l, and a_l = LeakyReLU(u_l) for the hidden
// layers (slope `leak` below 0), a_L = u_L (linear output). The parameters are one flat vector:
// for each layer in order, W_l column-major (w_l × w_{l−1}), then b_l. A batch is a matrix with
// one column per sample (w_0 × B), so a layer is one matrix product over the batch.
#pragma once

#include <vector>

#include "theory/base/linalg.hpp"
#include "theory/base/rng.hpp"

namespace fedverify::theory {

using RowVector = Eigen::RowVectorXd;

class Mlp {
 public:
  // `hidden` are the widths of the hidden layers (may be empty: a linear model); output width 1.
  // Throws InputError when the input width or a hidden width is < 1, or leak is not finite.
  Mlp(int input, std::vector<int> hidden, double leak = 0.01);

  int input() const { return widths_.front(); }
  int layers() const { return static_cast<int>(widths_.size()) - 1; }
  Eigen::Index parameters() const { return parameters_; }

  // PyTorch's default initialisation of nn.Linear (what [DeepGMM]'s code used): every weight and
  // bias of layer l uniform on (−1/√w_{l−1}, 1/√w_{l−1}), drawn in the flat order above.
  Vector initial(estimators::Stream& stream) const;

  // What the backward pass needs from the forward pass: the pre-activations u_l and the inputs
  // a_{l−1} of every layer (a_0 is the batch itself, not copied).
  struct Cache {
    std::vector<Matrix> pre;     // u_1, …, u_L
    std::vector<Matrix> inputs;  // a_1, …, a_{L−1} (inputs of layers 2..L)
  };

  // The outputs (1 × B) of the network with parameters `params` on the batch `in` (w_0 × B).
  // With a cache, keeps what backward needs.
  RowVector forward(const Vector& params, const Matrix& in, Cache* cache = nullptr) const;

  // grad += ∇_params Σ_b weights_b · out_b, from the cache of forward(params, in). The weights
  // are ∂(loss)/∂out_b of the caller's loss.
  void backward(const Vector& params, const Matrix& in, const Cache& cache,
                const RowVector& weights, Vector& grad) const;

 private:
  std::vector<int> widths_;
  std::vector<Eigen::Index> offsets_;  // start of W_l in the flat vector (b_l follows W_l)
  Eigen::Index parameters_ = 0;
  double leak_;
};

}  // namespace fedverify::theory
