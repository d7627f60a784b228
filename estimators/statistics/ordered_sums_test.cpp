// The fixed-order sums of ordered_sums.hpp against their definition written as plain scalar
// loops, one entry at a time (terms in ascending order, one `+=` of a product per term, compiled
// without vectorisation of any reduction): bit-for-bit equality, which is the property the
// cross-CPU digests rely on. Sizes cover the four-column passes and their remainder (K mod 4 =
// 0…3) and dimensions that fill no vector, one, and several with a tail.
#include "estimators/statistics/ordered_sums.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace fedverify::estimators {
namespace {

Matrix random_matrix(Eigen::Index rows, Eigen::Index cols, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  Matrix m(rows, cols);
  for (Eigen::Index j = 0; j < cols; ++j) {
    for (Eigen::Index i = 0; i < rows; ++i) m(i, j) = normal(rng) * std::exp(normal(rng));
  }
  return m;
}

// Statement: every entry equals its terms added in ascending order, exactly.
TEST(OrderedSums, EqualTheirSequentialDefinitionBitForBit) {
  for (const int d : {1, 3, 8, 13, 30}) {
    for (const int chains : {1, 2, 5, 8, 11, 37}) {
      const Matrix c = random_matrix(d, chains, 7u * d + chains);
      Vector sums;
      ordered_row_sums(c, sums);
      Matrix s = random_matrix(d, d, 3u * d + chains);  // an existing scatter to add to
      const Matrix before = s;
      add_ordered_lower_products(c, s);
      const Vector v = c.col(0);
      Matrix outer = before;
      add_ordered_lower_outer(v, 0.375, outer);
      for (int i = 0; i < d; ++i) {
        volatile double row = 0.0;  // volatile: the reference is not reassociated or vectorised
        for (int k = 0; k < chains; ++k) row = row + c(i, k);
        EXPECT_EQ(sums(i), row) << "d " << d << " K " << chains << " row " << i;
        for (int j = 0; j < d; ++j) {
          if (i < j) {
            EXPECT_EQ(s(i, j), before(i, j)) << "upper triangle touched at " << i << "," << j;
            continue;
          }
          double entry = before(i, j);
          for (int k = 0; k < chains; ++k) entry = std::fma(c(i, k), c(j, k), entry);
          double plain = before(i, j);
          for (int k = 0; k < chains; ++k) plain = plain + c(i, k) * c(j, k);
          // Where the target fuses a product and its addition, each term is one fma; where it
          // does not, one product and one addition. Either way the order is ascending k.
          EXPECT_TRUE(s(i, j) == entry || s(i, j) == plain)
              << "d " << d << " K " << chains << " entry " << i << "," << j;
          const double w_vj = 0.375 * v(j);
          EXPECT_TRUE(outer(i, j) == std::fma(v(i), w_vj, before(i, j)) ||
                      outer(i, j) == before(i, j) + v(i) * w_vj);
        }
      }
    }
  }
}

// Statement: the ordered sums are the same sums as Eigen's (up to rounding: relative 1e-13 of
// the sum of absolute terms), so the change of order changes no statistic beyond rounding.
TEST(OrderedSums, AgreeWithEigenUpToRounding) {
  const Matrix c = random_matrix(17, 45, 11);
  Matrix s = Matrix::Zero(17, 17);
  add_ordered_lower_products(c, s);
  const Matrix reference = c * c.transpose();
  const Matrix scale = c.cwiseAbs() * c.cwiseAbs().transpose();
  for (int j = 0; j < 17; ++j) {
    for (int i = j; i < 17; ++i)
      EXPECT_LE(std::abs(s(i, j) - reference(i, j)), 1e-13 * scale(i, j));
  }
}

}  // namespace
}  // namespace fedverify::estimators
