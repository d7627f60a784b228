// Quadratic game files (docs/DESIGN-EXTENSIONS.md, "Quadratic games"; THEORY M1):
//
//   {"kind": "quadratic-game",
//    "clients": [{"A": [[…]], "B": [[…]], "C": [[…]], "a": […], "c": […],
//                 "noise_cov": [[…]]}, …]}
//
// A_i (p × p) and C_i (q × q) symmetric positive semi-definite, B_i p × q, a_i ∈ ℝ^p, c_i ∈ ℝ^q,
// noise_cov the (p + q) × (p + q) covariance of the gradient noise on z = (θ, τ). Parsed as
// strictly as problem files (problem_io.hpp): duplicate keys, unknown fields, wrong shapes and
// the validation of QuadraticGame are InputErrors naming the file and the field.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "theory/problems/quadratic_game.hpp"

namespace fedverify::theory {

QuadraticGame parse_quadratic_game(const nlohmann::json& j, const std::string& source);
QuadraticGame load_quadratic_game(const std::string& path);
// parse_quadratic_game(quadratic_game_to_json(g)) reproduces g exactly.
nlohmann::json quadratic_game_to_json(const QuadraticGame& game);

}  // namespace fedverify::theory
