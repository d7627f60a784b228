// Client weights in problem files (client_weights_io.hpp, THEORY (A1)): every kind reads
// "weight"; data-backed kinds read "client_weights": "data-size"; errors name the field; the
// weights survive problem_to_json; a weighted problem's averages are Σ_c p_c.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "theory/base/input_error.hpp"
#include "theory/problems/linear_sa_problem.hpp"
#include "theory/problems/optimum.hpp"
#include "theory/problems/problem_io.hpp"

namespace fedverify::theory {
namespace {

const char* kQuadratic = R"({"kind": "quadratic", "clients": [
  {"weight": 1, "hessian": [[1, 0], [0, 2]], "optimum": [1, 0], "noise_cov": [[1, 0], [0, 1]]},
  {"weight": 3, "hessian": [[2, 0], [0, 1]], "optimum": [0, 1], "noise_cov": [[1, 0], [0, 1]]}]})";

std::unique_ptr<Problem> parse(const std::string& text) {
  return parse_problem(nlohmann::json::parse(text), "p.json");
}

std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ClientWeightsIo, QuadraticWeightsAreNormalisedAndWeighTheObjective) {
  const auto p = parse(kQuadratic);
  ASSERT_FALSE(p->equal_weights());
  EXPECT_DOUBLE_EQ(p->weight(0), 0.25);
  EXPECT_DOUBLE_EQ(p->weight(1), 0.75);
  // x* solves ¼ A_0 (x − b_0) + ¾ A_1 (x − b_1) = 0: x = (¼·1 + ¾·0·2)/(¼ + ¾·2), … per axis.
  const Vector x = problem_constants(*p).x_star;
  EXPECT_NEAR(x(0), (0.25 * 1 * 1) / (0.25 * 1 + 0.75 * 2), 1e-12);
  EXPECT_NEAR(x(1), (0.75 * 1 * 1) / (0.25 * 2 + 0.75 * 1), 1e-12);
}

TEST(ClientWeightsIo, WeightsSurviveTheRoundTrip) {
  const auto p = parse(kQuadratic);
  const nlohmann::json j = problem_to_json(*p);
  EXPECT_EQ(j["clients"][0]["weight"], 1.0);
  EXPECT_EQ(j["clients"][1]["weight"], 3.0);
  const auto q = parse_problem(j, "round trip");
  EXPECT_EQ(q->weight(1), p->weight(1));
  // Equal weights are written as none.
  const auto e = parse(R"({"kind": "quadratic", "clients": [
    {"weight": 2, "hessian": [[1]], "optimum": [1], "noise_cov": [[1]]},
    {"weight": 2, "hessian": [[2]], "optimum": [0], "noise_cov": [[1]]}]})");
  EXPECT_TRUE(e->equal_weights());
  EXPECT_FALSE(problem_to_json(*e)["clients"][0].contains("weight"));
}

TEST(ClientWeightsIo, BadWeightsNameTheField) {
  // A client without a weight weighs 1 (the documented default).
  const auto one = parse(R"({"kind": "quadratic", "clients": [
    {"weight": 3, "hessian": [[1]], "optimum": [1], "noise_cov": [[1]]},
    {"hessian": [[2]], "optimum": [0], "noise_cov": [[1]]}]})");
  EXPECT_DOUBLE_EQ(one->weight(1), 0.25);
  for (const char* bad : {"0", "-1", "\"2\""}) {
    const std::string text = std::string(R"({"kind": "quadratic", "clients": [
      {"weight": )") + bad + R"(, "hessian": [[1]], "optimum": [1], "noise_cov": [[1]]},
      {"weight": 1, "hessian": [[2]], "optimum": [0], "noise_cov": [[1]]}]})";
    EXPECT_NE(error_of(text).find("clients[0].weight"), std::string::npos) << error_of(text);
  }
  const std::string data_size_quadratic = R"({"kind": "quadratic", "client_weights": "data-size",
    "clients": [{"hessian": [[1]], "optimum": [1], "noise_cov": [[1]]}]})";
  EXPECT_NE(error_of(data_size_quadratic).find("client_weights"), std::string::npos)
      << error_of(data_size_quadratic);
}

TEST(ClientWeightsIo, DataSizeWeighsLeastSquaresClientsByTheirRows) {
  const std::string text = R"({"kind": "least-squares", "l2": 0.1, "batch_size": 1,
    "client_weights": "data-size", "clients": [
      {"features": [[1, 0], [0, 1]], "targets": [1, 0]},
      {"features": [[1, 1], [1, -1], [2, 0], [0, 1]], "targets": [0, 1, 1, 0]}]})";
  const auto p = parse(text);
  EXPECT_NEAR(p->weight(0), 2.0 / 6.0, 1e-15);
  EXPECT_NEAR(p->weight(1), 4.0 / 6.0, 1e-15);
  // x* solves Σ_c p_c (Ā_c x − b̄_c) = 0 (THEORY (L0), (A1)).
  const auto& lsa = dynamic_cast<const LinearSaProblem&>(*p);
  Vector field = Vector::Zero(2);
  for (int c = 0; c < 2; ++c)
    field += p->weight(c) * (lsa.mean_a(c) * lsa.solution() - lsa.mean_b(c));
  EXPECT_LE(field.norm(), 1e-13);
  const std::string both = R"({"kind": "least-squares", "batch_size": 1,
    "client_weights": "data-size", "clients": [
      {"weight": 1, "features": [[1, 0], [0, 1]], "targets": [1, 0]},
      {"weight": 2, "features": [[1, 1], [1, -1]], "targets": [0, 1]}]})";
  EXPECT_NE(error_of(both).find("client_weights: given together with clients[].weight"),
            std::string::npos)
      << error_of(both);
  const std::string unknown = R"({"kind": "least-squares", "batch_size": 1,
    "client_weights": "rows", "clients": [{"features": [[1, 0], [0, 1]], "targets": [1, 0]}]})";
  EXPECT_NE(error_of(unknown).find("client_weights: expected \"equal\" or \"data-size\""),
            std::string::npos)
      << error_of(unknown);
}

}  // namespace
}  // namespace fedverify::theory
