// The linear-sa and least-squares problem kinds (linear_sa_problem.hpp, linear_sa_io.cpp):
// parsing, validation messages that name the field, the JSON round trip, and the problem-layer
// quantities (x*, mean field, C_c(x)) against direct enumeration of the samples.
#include <gtest/gtest.h>

#include <string>

#include "theory/base/input_error.hpp"
#include "theory/problems/linear_sa_problem.hpp"
#include "theory/problems/problem_io.hpp"

namespace fedverify {
namespace {

using nlohmann::json;

json dense_file() {
  return json::parse(R"({"kind": "linear-sa", "batch_size": 2, "clients": [
    {"samples": [{"weight": 1, "A": [[1.0, 0.5], [-0.5, 1.0]], "b": [1, 0]},
                 {"weight": 3, "A": [[2.0, 0.0], [0.3, 0.5]], "b": [0, 2]}]},
    {"weight": 1, "samples": [{"A": [[1.5, -0.2], [0.1, 0.8]], "b": [-1, 1]}]}]})");
}

json least_squares_file() {
  return json::parse(R"({"kind": "least-squares", "l2": 0.1, "batch_size": 1, "clients": [
    {"features": [[1, 0], [0, 1], [1, 1]], "targets": [1, 2, 0]},
    {"features": [[2, 1], [-1, 1]], "targets": [0.5, -1]}]})");
}

// The InputError message of parsing `j`, or "" when it parses.
std::string error_of(const json& j) {
  try {
    theory::parse_problem(j, "p.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(LinearSaProblem, ParsesAndRoundTripsBothKinds) {
  for (const json& j : {dense_file(), least_squares_file()}) {
    const auto p = theory::parse_problem(j, "p.json");
    EXPECT_TRUE(theory::is_linear_sa(p->kind()));
    const auto again = theory::parse_problem(theory::problem_to_json(*p), "again");
    EXPECT_EQ(theory::problem_to_json(*p), theory::problem_to_json(*again));
    EXPECT_EQ(theory::to_string(p->kind()), j["kind"].get<std::string>());
  }
}

TEST(LinearSaProblem, MeansSolutionAndNoiseMatchEnumeration) {
  const auto p = theory::parse_problem(dense_file(), "p.json");
  const auto& lsa = dynamic_cast<const theory::LinearSaProblem&>(*p);
  Matrix a0(2, 2), a1(2, 2), a2(2, 2);
  a0 << 1.0, 0.5, -0.5, 1.0;
  a1 << 2.0, 0.0, 0.3, 0.5;
  a2 << 1.5, -0.2, 0.1, 0.8;
  const Vector b0 = Vector::Unit(2, 0), b1 = 2 * Vector::Unit(2, 1);
  Vector b2(2);
  b2 << -1, 1;
  const Matrix abar0 = 0.25 * a0 + 0.75 * a1;  // weights 1 : 3
  const Vector bbar0 = 0.25 * b0 + 0.75 * b1;
  EXPECT_LE((lsa.mean_a(0) - abar0).norm(), 1e-15);
  // x* solves (Ā_0 + Ā_1) x = b̄_0 + b̄_1 (a 2×2 solve: round-off only).
  const Vector x_star = (abar0 + a2).inverse() * (bbar0 + b2);
  EXPECT_LE((lsa.solution() - x_star).norm(), 1e-14);
  EXPECT_LE((lsa.gradient(0, x_star) + lsa.gradient(1, x_star)).norm(), 1e-14);
  // C_0(x) = Cov(A x − b)/B over the two samples, B = 2.
  Vector x(2);
  x << 0.3, -0.7;
  const Vector g0 = a0 * x - b0, g1 = a1 * x - b1, gbar = 0.25 * g0 + 0.75 * g1;
  const Matrix c = (0.25 * (g0 - gbar) * (g0 - gbar).transpose() +
                    0.75 * (g1 - gbar) * (g1 - gbar).transpose()) /
                   2.0;
  EXPECT_LE((lsa.noise_covariance(0, x) - c).norm(), 1e-15);
  // A one-sample client has no noise.
  EXPECT_LE(lsa.noise_covariance(1, x).norm(), 1e-15);
}

TEST(LinearSaProblem, LeastSquaresIsTheRankOneSpecialCase) {
  const auto p = theory::parse_problem(least_squares_file(), "p.json");
  const auto& lsa = dynamic_cast<const theory::LinearSaProblem&>(*p);
  const auto& cl = lsa.ls_client(0);
  Vector x(2);
  x << 0.4, -1.1;
  Matrix s(2, 2);
  s << 0.3, 0.1, 0.1, 0.2;
  // E_x[C(x)] for x ~ (x, s) by the dense formula over the explicit A_j = a aᵀ + λI, b_j = y a.
  Matrix abar = Matrix::Zero(2, 2);
  Vector bbar = Vector::Zero(2);
  for (int j = 0; j < 3; ++j) {
    const Vector a = cl.features.row(j).transpose();
    abar += (a * a.transpose() + 0.1 * Matrix::Identity(2, 2)) / 3;
    bbar += cl.targets(j) * a / 3;
  }
  Matrix expected = Matrix::Zero(2, 2);
  for (int j = 0; j < 3; ++j) {
    const Vector a = cl.features.row(j).transpose();
    const Matrix da = a * a.transpose() + 0.1 * Matrix::Identity(2, 2) - abar;
    const Vector r = da * x - (cl.targets(j) * a - bbar);
    expected += (r * r.transpose() + da * s * da.transpose()) / 3;
  }
  EXPECT_LE((lsa.mean_a(0) - abar).norm(), 1e-15);
  EXPECT_LE((lsa.expected_noise_covariance(0, x, s) - expected).norm(), 1e-14);
}

TEST(LinearSaProblem, BadInputNamesTheField) {
  struct Bad {
    const char* pointer;  // JSON pointer of the value to replace
    json value;
    const char* expected;  // a substring of the message
  };
  for (const Bad& b : {
           Bad{"/batch_size", 0, "batch_size"},
           Bad{"/clients/0/samples/1/weight", -1, "clients[0].samples[1].weight"},
           Bad{"/clients/0/samples/1/weight", 0, "clients[0].samples[1].weight"},
           Bad{"/clients/0/samples/1/b", json::array({1, 2, 3}), "clients[0].samples[1].b"},
           Bad{"/clients/1/samples/0/A", json::array({json::array({1, 2})}),
               "clients[1].samples[0].A"},
           Bad{"/clients/1/samples/0/A", json::parse("[[-1, 0], [0, 1]]"), "unstable mean map"},
           Bad{"/clients/1/weight", -2, "clients[1].weight"},
           Bad{"/clients/0/samples", json::array(), "clients[0].samples"},
       }) {
    json j = dense_file();
    j[json::json_pointer(b.pointer)] = b.value;
    const std::string message = error_of(j);
    EXPECT_NE(message.find(b.expected), std::string::npos) << b.pointer << ": " << message;
    EXPECT_NE(message.find("p.json"), std::string::npos) << message;
  }
  json unknown = dense_file();
  unknown["clients"][0]["samples"][0]["c"] = 1;
  EXPECT_NE(error_of(unknown).find("unknown field"), std::string::npos);
  // Σ_c Ā_c singular although every Ā_c is stable: Ā_0 = R, Ā_1 = −R would not be stable, so
  // use a rank-deficient least-squares problem with λ = 0 instead (its Ā_c is singular).
  json ls = least_squares_file();
  ls["l2"] = 0;
  ls["clients"][1]["features"] = json::parse("[[1, 1], [2, 2]]");
  EXPECT_NE(error_of(ls).find("clients[1]: unstable mean map"), std::string::npos) << error_of(ls);
  json targets = least_squares_file();
  targets["clients"][0]["targets"] = json::array({1, 2});
  EXPECT_NE(error_of(targets).find("clients[0].targets"), std::string::npos);
  json l2 = least_squares_file();
  l2["l2"] = -1;
  EXPECT_NE(error_of(l2).find("l2"), std::string::npos);
}

// Σ_c Ā_c singular with every client stable (non-normal means): Ā_0 = [[1, 4], [0, 1]] and
// Ā_1 = [[1, 0], [1, 1]] both have the double eigenvalue 1, and their sum [[2, 4], [1, 2]] is
// singular: x* is not unique.
TEST(LinearSaProblem, SingularSumOfStableMeansIsRefused) {
  json j = json::parse(R"({"kind": "linear-sa", "batch_size": 1, "clients": [
    {"samples": [{"A": [[1, 4], [0, 1]], "b": [1, 0]}]},
    {"samples": [{"A": [[1, 0], [1, 1]], "b": [0, 1]}]}]})");
  EXPECT_NE(error_of(j).find("clients: the sum over clients of the mean A is singular"),
            std::string::npos)
      << error_of(j);
}

}  // namespace
}  // namespace fedverify
