#include "estimators/samplers/compressors.hpp"

#include <bit>
#include <cmath>
#include <numeric>
#include <vector>

namespace fedverify::estimators {
namespace {
int ceil_log2(int n) { return n <= 1 ? 0 : static_cast<int>(std::bit_width(unsigned(n - 1))); }
}  // namespace

Vector random_k(const Vector& x, int k, Stream& stream) {
  const int d = static_cast<int>(x.size());
  // Partial Fisher–Yates: the first k entries of `index` are a uniform k-subset.
  std::vector<int> index(d);
  std::iota(index.begin(), index.end(), 0);
  for (int j = 0; j < k; ++j) {
    const int pick = j + static_cast<int>(stream.below(static_cast<std::uint64_t>(d - j)));
    std::swap(index[j], index[pick]);
  }
  Vector q = Vector::Zero(d);
  const double scale = static_cast<double>(d) / k;
  for (int j = 0; j < k; ++j) q[index[j]] = scale * x[index[j]];
  return q;
}

Vector random_dithering(const Vector& x, int levels, Stream& stream) {
  const double norm = x.norm();
  Vector q = Vector::Zero(x.size());
  if (norm == 0) return q;
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    const double scaled = levels * std::abs(x[i]) / norm;
    const double floor = std::floor(scaled);
    const double level = floor + (stream.uniform() < scaled - floor ? 1.0 : 0.0);
    q[i] = std::copysign(norm * level / levels, x[i]);
  }
  return q;
}

double dithering_variance(const Vector& x, int levels) {
  const double norm = x.norm();
  if (norm == 0) return 0;
  double sum = 0;
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    const double scaled = levels * std::abs(x[i]) / norm;
    const double frac = scaled - std::floor(scaled);
    sum += frac * (1 - frac);
  }
  return norm * norm * sum / (static_cast<double>(levels) * levels);
}

Vector natural_compression(const Vector& x, Stream& stream) {
  Vector q = Vector::Zero(x.size());
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    const double t = std::abs(x[i]);
    if (t == 0) continue;
    int exponent = 0;
    std::frexp(t, &exponent);                          // t = m·2^e, m ∈ [½, 1)
    const double low = std::ldexp(1.0, exponent - 1);  // 2^a ≤ t < 2^{a+1} = 2·low
    const double up_probability = (t - low) / low;
    q[i] = std::copysign(stream.uniform() < up_probability ? 2 * low : low, x[i]);
  }
  return q;
}

double natural_variance(const Vector& x) {
  double sum = 0;
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    const double t = std::abs(x[i]);
    if (t == 0) continue;
    int exponent = 0;
    std::frexp(t, &exponent);
    const double low = std::ldexp(1.0, exponent - 1);
    sum += (2 * low - t) * (t - low);
  }
  return sum;
}

Vector compress(const theory::CompressorSpec& spec, const Vector& x, Stream& stream) {
  switch (spec.kind) {
    case theory::CompressorKind::identity:
      return x;
    case theory::CompressorKind::random_k:
      return random_k(x, spec.parameter, stream);
    case theory::CompressorKind::dithering:
      return random_dithering(x, spec.parameter, stream);
    case theory::CompressorKind::natural:
      return natural_compression(x, stream);
  }
  return x;
}

std::int64_t compressed_bits(const theory::CompressorSpec& spec, int dim) {
  switch (spec.kind) {
    case theory::CompressorKind::identity:
      return 64LL * dim;
    case theory::CompressorKind::random_k:
      return static_cast<std::int64_t>(spec.parameter) * (64 + ceil_log2(dim));
    case theory::CompressorKind::dithering:
      return 64 + static_cast<std::int64_t>(dim) * (1 + ceil_log2(spec.parameter + 1));
    case theory::CompressorKind::natural:
      return 9LL * dim;
  }
  return 64LL * dim;
}

}  // namespace fedverify::estimators
