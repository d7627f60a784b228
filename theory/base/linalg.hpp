// Dense linear-algebra vocabulary shared by every module.
#pragma once

#include <Eigen/Dense>

namespace fedverify {

using Vector = Eigen::VectorXd;
using Matrix = Eigen::MatrixXd;  // chain ensembles are d×K: one column per chain

// Symmetric part ½(M + Mᵀ); stationary covariances are symmetrised before they are reported.
inline Matrix symmetric_part(const Matrix& m) { return 0.5 * (m + m.transpose()); }

}  // namespace fedverify
