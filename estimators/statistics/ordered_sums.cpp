// Fixed-order sums (ordered_sums.hpp). Each loop nest keeps the summed index outermost and runs
// the independent entries innermost, so a vectorised inner loop adds the same term to a packet
// of entries at once and every entry sees its terms in the source's order.
#include "estimators/statistics/ordered_sums.hpp"

namespace fedverify::estimators {

void ordered_row_sums(const Matrix& x, Vector& out) {
  const Eigen::Index d = x.rows();
  out.setZero(d);
  double* sum = out.data();
  for (Eigen::Index k = 0; k < x.cols(); ++k) {
    const double* column = x.col(k).data();
    for (Eigen::Index i = 0; i < d; ++i) sum[i] += column[i];
  }
}

void add_ordered_lower_products(const Matrix& c, Matrix& s) {
  const Eigen::Index d = c.rows();
  const Eigen::Index chains = c.cols();
  // Four columns per pass: each entry of s is loaded and stored once per four terms instead of
  // once per term (the pass is bound by those loads and stores), and its four additions are
  // written out one after the other, so the order is still k, k + 1, k + 2, k + 3.
  Eigen::Index k = 0;
  for (; k + 4 <= chains; k += 4) {
    const double* c0 = c.col(k).data();
    const double* c1 = c.col(k + 1).data();
    const double* c2 = c.col(k + 2).data();
    const double* c3 = c.col(k + 3).data();
    for (Eigen::Index j = 0; j < d; ++j) {
      const double a0 = c0[j], a1 = c1[j], a2 = c2[j], a3 = c3[j];
      double* column = s.col(j).data();
      for (Eigen::Index i = j; i < d; ++i) {
        double t = column[i];
        t += c0[i] * a0;
        t += c1[i] * a1;
        t += c2[i] * a2;
        t += c3[i] * a3;
        column[i] = t;
      }
    }
  }
  for (; k < chains; ++k) {
    const double* ck = c.col(k).data();
    for (Eigen::Index j = 0; j < d; ++j) {
      const double a = ck[j];
      double* column = s.col(j).data();
      for (Eigen::Index i = j; i < d; ++i) column[i] += ck[i] * a;
    }
  }
}

void add_ordered_lower_outer(const Vector& v, double w, Matrix& s) {
  const Eigen::Index d = v.size();
  const double* x = v.data();
  for (Eigen::Index j = 0; j < d; ++j) {
    const double a = w * x[j];
    double* column = s.col(j).data();
    for (Eigen::Index i = j; i < d; ++i) column[i] += x[i] * a;
  }
}

}  // namespace fedverify::estimators
