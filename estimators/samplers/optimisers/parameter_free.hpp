// What the parameter-free rules (DoG, DoWG, Prodigy; Table 2.1, THEORY O1) share: the start x_0
// is their first vector, and they measure distances ‖x − x_0‖ and gradient norms per column.
#pragma once

#include <array>

#include "estimators/samplers/optimisers/update_rule.hpp"

namespace fedverify::estimators {

using ColumnScratch = std::array<double, kMaxRuleColumns>;

// Copies x into state.vectors[0] (x_0) and sets every other vector and scalar to 0; checks
// columns ≤ kMaxRuleColumns.
void start_from(int dim, int columns, const double* x, const RuleState& state);

// x(i, c) ← x(i, c) − step[c] · g(i, c): one step size per column.
void take_column_steps(int dim, int columns, const double* step, const double* g, double* x);

// r_ε = r_eps · (1 + ‖x_0‖) per column: the initial distance estimate of DoG and DoWG (Ivgi,
// Hinder & Carmon 2023, §3; Table 2.1 prints r̄_0 = 0, with which they never move — flagged).
void initial_distance(int dim, int columns, const double* x0, double r_eps, double* out);

}  // namespace fedverify::estimators
