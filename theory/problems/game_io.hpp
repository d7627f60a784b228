// Game files (docs/DESIGN-EXTENSIONS.md, "Games"; THEORY §10): the problems of the game family
// (--algo fedgda, fedsgda). Two kinds:
//   {"kind": "quadratic-game", …}  quadratic_game_io.hpp (M1);
//   {"kind": "linear-iv", "phi": "affine", "psi": "affine", "theta_tilde": […] (optional),
//    "clients": [{"x": [[…], …], "z": [[…], …], "y": […]}, …]}  (M5; linear_iv.hpp), where x and z
//    are n_i × d_x and n_i × d_z (a flat array is one column) and y has n_i entries.
// Parsed as strictly as problem files: unknown fields, duplicate keys, wrong shapes and every
// validation of the game are InputErrors naming the file and the field.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

#include "theory/problems/linear_iv.hpp"
#include "theory/problems/quadratic_game.hpp"

namespace fedverify::theory {

class GameProblem {
 public:
  explicit GameProblem(QuadraticGame game) : game_(std::move(game)) {}
  explicit GameProblem(LinearIvGame iv) : game_(iv.game()), iv_(std::move(iv)) {}

  // "quadratic-game" or "linear-iv".
  std::string kind() const { return iv_ ? "linear-iv" : "quadratic-game"; }
  // The quadratic game FedGDA runs on (for linear IV: its full-batch objectives).
  const QuadraticGame& game() const { return game_; }
  // The data behind a linear-IV game, or nullptr.
  const LinearIvGame* linear_iv() const { return iv_ ? &*iv_ : nullptr; }

 private:
  QuadraticGame game_;
  std::optional<LinearIvGame> iv_;
};

GameProblem parse_game(const nlohmann::json& j, const std::string& source);
GameProblem load_game(const std::string& path);
// parse_game(game_to_json(g)) reproduces g exactly.
nlohmann::json game_to_json(const GameProblem& problem);
nlohmann::json linear_iv_to_json(const LinearIvGame& iv);

// True for the kinds above: lets the loader of chain problems point at --algo fedgda.
bool is_game_kind(const std::string& kind);

}  // namespace fedverify::theory
