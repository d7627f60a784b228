// Input checks and reference distributions shared by the decision rules of decide.hpp, whose
// definitions are split by concept over decide.cpp (the vector and matrix rules (a)–(d)),
// decide_scalar.cpp (the rules on replicated scalars (e)–(k)) and decide_equivalence.cpp
// (equivalence (l), minimum detectable errors (m), calibration).
// Internal to estimators/statistics.
#pragma once

#include "theory/base/linalg.hpp"

namespace fedverify::estimators::decide_internal {

// Throw InputError naming the field.
void check_alpha(double alpha);                                           // α in (0, 1)
void check_sizes(Eigen::Index d, Eigen::Index other, const char* field);  // other == d
// A zero standard error is allowed (the statistic is then ±∞ or NaN and the verdict follows the
// rule's inequality); a negative or non-finite one is an input error.
void check_se(double se, const char* field);

// The reference distribution of a statistic (estimate − θ)/se: Student's t with `dof` degrees of
// freedom when se is estimated from replications (dof > 0), the standard normal otherwise. With
// se from G = 20 replications the normal quantile at a two-sided 8e-4 is 3.35 where t₁₉'s is 4.0:
// the normal reference would quadruple the false-alarm rate.
double upper_quantile(double tail, double dof);   // q with P(T > q) = tail
double upper_tail(double statistic, double dof);  // P(T > statistic)

// The statistic of rule (d), matrix_agreement: max over i ≤ j of (|M_ij − P_ij| − allowance_ij)⁺
// / MCSE_ij (+∞ for an excess over a zero MCSE). `slack` is the allowance (zeros for none).
double entrywise_excess(const Matrix& measured, const Matrix& predicted, const Matrix& mcse,
                        const Matrix& slack);

}  // namespace fedverify::estimators::decide_internal
