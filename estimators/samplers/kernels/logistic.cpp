#include "estimators/samplers/kernels/logistic.hpp"

#include "estimators/samplers/lanes.hpp"

namespace fedverify::estimators {

static_assert(simd::kPackLanes == kLanes, "the kernel works on blocks of kLanes chains");

LogisticSampler::LogisticSampler(const theory::LogisticProblem& p)
    : d_(p.dim()), l2_(p.l2()), batch_(p.batch_size()) {
  for (int c = 0; c < p.num_clients(); ++c) {
    using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    // Signed rows ã_j = y_j a_j (y_j = ±1, so the products are exact): the gradient term
    // φ'(y aᵀx) y a = −ã / (1 + e^{ãᵀx}) then needs no label.                THEORY (§6)
    const RowMajor f = p.client(c).labels.asDiagonal() * p.client(c).features;
    std::vector<double> table(f.data(), f.data() + f.size());
    table.resize(table.size() + simd::kRowPadding, 0.0);  // the kernel's row loads read past
    features_.push_back(std::move(table));
    samples_.push_back(static_cast<int>(f.rows()));
  }
}

void LogisticSampler::local_steps(int client, BatchAddress address, int /*active*/, double gamma,
                                  int steps, double* y, const double* correction,
                                  KernelWorkspace& ws) const {
  simd::logistic_local_steps(block(client, address, gamma, steps, ws.indices), y, correction);
}

void LogisticSampler::local_steps_pair(int client, BatchAddress address, int /*active*/,
                                       double gamma, int steps, double* y, const double* correction,
                                       double* y_next, const double* correction_next,
                                       KernelWorkspace& ws) const {
  const simd::LogisticBlock first = block(client, address, gamma, steps, ws.indices);
  address.client += 1;
  const simd::LogisticBlock second = block(client + 1, address, gamma, steps, ws.indices_pair);
  simd::logistic_local_steps_pair(first, y, correction, second, y_next, correction_next);
}

simd::LogisticBlock LogisticSampler::block(int client, const BatchAddress& address, double gamma,
                                           int steps, std::vector<std::uint32_t>& offsets) const {
  const int per_chain = steps * batch_;
  offsets.resize(static_cast<std::size_t>(per_chain) * kLanes);
  indices_across_chains<kLanes>(address, static_cast<std::uint32_t>(samples_[client]),
                                offsets.data(), per_chain);
  for (auto& o : offsets) o *= static_cast<std::uint32_t>(d_);
  simd::LogisticBlock b;
  b.table = features_[client].data();
  b.offsets = offsets.data();
  b.dim = d_;
  b.steps = steps;
  b.batch = batch_;
  b.gamma = gamma;
  b.l2 = l2_;
  return b;
}

}  // namespace fedverify::estimators
