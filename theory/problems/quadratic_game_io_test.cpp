// Quadratic game files and the game generator (THEORY M1).
#include "theory/problems/quadratic_game_io.hpp"

#include <gtest/gtest.h>

#include <string>

#include "theory/base/input_error.hpp"
#include "theory/problems/problem_io.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify::theory {
namespace {

std::string refusal(const std::string& text) {
  try {
    parse_quadratic_game(parse_json_text(text, "g.json"), "g.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

const std::string kClient =
    R"({"A": [[1, 0], [0, 2]], "B": [[0.5], [0]], "C": [[1]], "a": [1, 0], "c": [0.5],
        "noise_cov": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]})";

TEST(QuadraticGameFile, RoundTripsExactly) {
  const QuadraticGame g = verify::small_game();
  const QuadraticGame back = parse_quadratic_game(quadratic_game_to_json(g), "round trip");
  for (int i = 0; i < g.num_clients(); ++i) {
    EXPECT_EQ(back.operator_matrix(i), g.operator_matrix(i));
    EXPECT_EQ(back.operator_offset(i), g.operator_offset(i));
    EXPECT_EQ(back.client(i).noise_cov, g.client(i).noise_cov);
  }
  EXPECT_EQ(back.equilibrium(), g.equilibrium());
  const QuadraticGame one = parse_quadratic_game(
      parse_json_text(R"({"kind": "quadratic-game", "clients": [)" + kClient + "]}", "g.json"),
      "g.json");
  EXPECT_EQ(one.theta_dim(), 2);
  EXPECT_EQ(one.tau_dim(), 1);
}

TEST(QuadraticGameFile, RefusalsNameTheFileAndTheField) {
  EXPECT_EQ(refusal(R"({"kind": "quadratic", "clients": []})"),
            R"(g.json: kind: expected "quadratic-game")");
  EXPECT_EQ(refusal(R"({"kind": "quadratic-game", "clients": []})"),
            "g.json: clients: expected a non-empty array of client objects");
  EXPECT_EQ(refusal(R"({"kind": "quadratic-game", "clients": [{"A": [[1]]}]})"),
            "g.json: clients[0].B: missing");
  EXPECT_EQ(refusal(R"({"kind": "quadratic-game", "klients": []})").rfind("g.json: klients", 0),
            0u);
  std::string not_psd = kClient;
  not_psd.replace(not_psd.find(R"("C": [[1]])"), 10, R"("C": [[-1]])");
  EXPECT_EQ(refusal(R"({"kind": "quadratic-game", "clients": [)" + not_psd + "]}")
                .rfind("g.json: clients[0].C: not positive semi-definite", 0),
            0u);
}

}  // namespace
}  // namespace fedverify::theory
