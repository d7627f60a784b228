// The federated TD(0) Garnet generator (theory/problems/garnet.hpp): the emitted JSON follows
// docs/problem-formats-linear-sa.md's `linear-sa` format field by field, the sample law is TD(0)'s (its weighted mean is
// Φᵀ D_c (I − ρP_c) Φ, formed here independently from the MDP), whose eigenvalues have positive
// real parts (Tsitsiklis & Van Roy 1997) and which is not symmetric; same seed ⇒ same bytes;
// heterogeneity 0 ⇒ identical clients; invalid options name the field.
// Tolerances: round-off (theory/base/testing/round_off.hpp), derived beside each check.
#include "theory/problems/garnet.hpp"

#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <cmath>
#include <string>

#include "theory/base/input_error.hpp"
#include "theory/base/testing/round_off.hpp"
#include "theory/problems/testing/design_format.hpp"

namespace fedverify {
namespace {

using theory::GarnetOptions;
using verify::kEps;
using verify::kSafety;

GarnetOptions small(std::uint64_t seed) {
  GarnetOptions o;
  o.states = 12;
  o.actions = 2;
  o.branching = 3;
  o.features = 4;
  o.clients = 3;
  o.kernel_heterogeneity = 0.5;
  o.reward_heterogeneity = 0.5;
  o.seed = seed;
  return o;
}

Matrix matrix_of(const nlohmann::json& rows) {
  Matrix m(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(rows[0].size()));
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    for (Eigen::Index j = 0; j < m.cols(); ++j) m(i, j) = rows[i][j].get<double>();
  }
  return m;
}

Vector vector_of(const nlohmann::json& v) {
  Vector x(static_cast<Eigen::Index>(v.size()));
  for (Eigen::Index i = 0; i < x.size(); ++i) x(i) = v[i].get<double>();
  return x;
}

// Σ_k w_k A_k and Σ_k w_k b_k over the client's samples, as the file states them.
std::pair<Matrix, Vector> client_means(const nlohmann::json& client) {
  const auto& samples = client["samples"];
  const auto d = static_cast<Eigen::Index>(samples[0]["b"].size());
  Matrix a = Matrix::Zero(d, d);
  Vector b = Vector::Zero(d);
  for (const auto& s : samples) {
    a += s["weight"].get<double>() * matrix_of(s["A"]);
    b += s["weight"].get<double>() * vector_of(s["b"]);
  }
  return {a, b};
}

// TD's mean field Φᵀ D (I − ρP) Φ from its definition (the generator forms samples instead).
Matrix td_mean_matrix(const Matrix& phi, const Vector& d, const Matrix& p, double rho) {
  const Matrix identity = Matrix::Identity(p.rows(), p.cols());
  return phi.transpose() * d.asDiagonal() * (identity - rho * p) * phi;
}

double min_real_eigenvalue(const Matrix& a) {
  return Eigen::EigenSolver<Matrix>(a, false).eigenvalues().real().minCoeff();
}

TEST(Garnet, FollowsTheDesignFormatFieldByField) {
  for (const auto map : {theory::GarnetFeatures::gaussian, theory::GarnetFeatures::uniform_l1}) {
    GarnetOptions o = small(3);
    o.feature_map = map;
    o.batch_size = 4;
    const nlohmann::json j = theory::garnet_td_json(o);
    EXPECT_EQ(verify::linear_sa_format_error(j), "");
    EXPECT_EQ(j["batch_size"], 4);
    EXPECT_EQ(j["clients"].size(), 3u);
    EXPECT_EQ(j["clients"][0]["samples"][0]["b"].size(), 4u);
    // The generator record: name, every knob, the seed.
    const auto& g = j["generator"];
    EXPECT_EQ(g["name"], "garnet-td");
    EXPECT_EQ(g["states"], 12);
    EXPECT_EQ(g["actions"], 2);
    EXPECT_EQ(g["branching"], 3);
    EXPECT_EQ(g["features"], 4);
    EXPECT_EQ(g["discount"], 0.95);
    EXPECT_EQ(g["clients"], 3);
    EXPECT_EQ(g["kernel_heterogeneity"], 0.5);
    EXPECT_EQ(g["reward_heterogeneity"], 0.5);
    EXPECT_EQ(g["feature_map"], theory::to_string(map));
    EXPECT_EQ(g["batch_size"], 4);
    EXPECT_EQ(g["seed"], 3);
    EXPECT_EQ(g.size(), 12u);
    // Text round trip: every number survives dump and parse (no NaN, no infinity).
    EXPECT_EQ(nlohmann::json::parse(j.dump()), j);
  }
  // The checker itself rejects what DESIGN forbids (so the check above could fail).
  nlohmann::json bad = theory::garnet_td_json(small(3));
  bad["clients"][1]["samples"][2]["A"][1].push_back(0.0);
  EXPECT_NE(verify::linear_sa_format_error(bad), "");
  bad = theory::garnet_td_json(small(3));
  bad["clients"][0]["samples"][0]["c"] = 1;
  EXPECT_NE(verify::linear_sa_format_error(bad), "");
  bad = theory::garnet_td_json(small(3));
  bad.erase("batch_size");
  EXPECT_NE(verify::linear_sa_format_error(bad), "");
}

TEST(Garnet, WeightsArePositiveAndSumToOnePerClient) {
  const GarnetOptions o = small(5);
  const nlohmann::json j = theory::garnet_td_json(o);
  for (const auto& client : j["clients"]) {
    double sum = 0;
    for (const auto& s : client["samples"]) {
      EXPECT_GT(s["weight"].get<double>(), 0.0);
      sum += s["weight"].get<double>();
    }
    // μ sums to 1 up to n_S·ε (its normalisation), each row of P_c up to (n_A·b)·ε, products
    // and this sum add n_S·n_A·b·ε: kSafety × (that total) bounds the error.
    const double tol = kSafety * (o.states + 2.0 * o.states * o.actions * o.branching) * kEps;
    EXPECT_NEAR(sum, 1.0, tol);
  }
}

TEST(Garnet, SameSeedGivesTheSameBytesAndClientsDoNotDependOnN) {
  EXPECT_EQ(theory::garnet_td_json(small(7)).dump(), theory::garnet_td_json(small(7)).dump());
  EXPECT_NE(theory::garnet_td_json(small(7)).dump(), theory::garnet_td_json(small(8)).dump());
  GarnetOptions more = small(7);
  more.clients = 5;
  const nlohmann::json a = theory::garnet_td_json(small(7)), b = theory::garnet_td_json(more);
  for (int c = 0; c < 3; ++c) EXPECT_EQ(a["clients"][c].dump(), b["clients"][c].dump());
}

TEST(Garnet, ZeroHeterogeneityGivesIdenticalClients) {
  GarnetOptions o = small(11);
  o.kernel_heterogeneity = 0.0;
  o.reward_heterogeneity = 0.0;
  const nlohmann::json j = theory::garnet_td_json(o);
  for (int c = 1; c < o.clients; ++c) EXPECT_EQ(j["clients"][c].dump(), j["clients"][0].dump());
  // Each knob alone makes them differ: the kernel through A and the weights, the reward via b.
  for (const bool kernel : {true, false}) {
    GarnetOptions h = o;
    (kernel ? h.kernel_heterogeneity : h.reward_heterogeneity) = 0.1;
    const nlohmann::json k = theory::garnet_td_json(h);
    const auto [a0, b0] = client_means(k["clients"][0]);
    const auto [a1, b1] = client_means(k["clients"][1]);
    EXPECT_EQ(kernel, (a0 - a1).norm() > 0.0);
    EXPECT_GT((b0 - b1).norm(), 0.0);  // b̄_c = Σ μ_c(s) r_c(s) φ(s) moves with μ_c or r_c
  }
}

TEST(Garnet, StationaryLawSolvesTheBalanceEquations) {
  GarnetOptions o = small(13);
  o.states = 40;
  const theory::GarnetMdp mdp = theory::generate_garnet(o);
  for (const auto& chain : mdp.clients) {
    EXPECT_GT(chain.stationary.minCoeff(), 0.0);
    // GTH is entrywise accurate; the residual of μᵀP = μᵀ is n·ε-sized per entry (‖μ‖₁ = 1).
    const double residual =
        (chain.stationary.transpose() * chain.kernel - chain.stationary.transpose()).lpNorm<1>();
    EXPECT_LT(residual, kSafety * o.states * kEps) << residual;
    // Rows of P_c are probability vectors (a sum of n_A·b terms: (n_A·b)·ε).
    EXPECT_LT((chain.kernel.rowwise().sum().array() - 1.0).abs().maxCoeff(),
              kSafety * o.actions * o.branching * kEps);
    EXPECT_GE(chain.kernel.minCoeff(), 0.0);
  }
  // Against an independent computation: the eigenvector of P_cᵀ for the eigenvalue 1.
  const auto& chain = mdp.clients[0];
  Eigen::EigenSolver<Matrix> es(chain.kernel.transpose());
  Eigen::Index k = 0;
  (es.eigenvalues().array() - 1.0).abs().minCoeff(&k);
  Vector v = es.eigenvectors().col(k).real();
  v /= v.sum();
  // Both backward stable; the forward error is ε·n·(1/spectral gap)-sized: the gap of a 40-state
  // random chain is O(1) here (checked: second |eigenvalue| < 0.9), so 1e3·n·ε is ample.
  Eigen::VectorXd moduli = es.eigenvalues().array().abs();
  std::sort(moduli.data(), moduli.data() + moduli.size());
  ASSERT_LT(moduli(moduli.size() - 2), 0.9);
  EXPECT_LT((v - chain.stationary).lpNorm<Eigen::Infinity>(), 1e3 * o.states * kEps);
}

TEST(Garnet, GthRefusesAReducibleChain) {
  Matrix p(3, 3);
  p << 0.5, 0.5, 0, 0.5, 0.5, 0, 0, 0, 1;  // state 2 is closed on itself
  EXPECT_THROW(theory::stationary_distribution(p), InputError);
}

// TD(0)'s stability: Ā_c = Φᵀ D_c (I − ρP_c) Φ (from the MDP, not from the samples) equals the
// weighted mean of the emitted A's, its symmetric part is positive definite (so Re λ > 0), and
// it is not symmetric. Over seeds, both feature maps, strong heterogeneity and ρ near 1.
TEST(Garnet, TdMeanFieldIsStableAndNotSymmetric) {
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    GarnetOptions o = small(seed);
    o.states = 30;
    o.features = 8;
    o.discount = seed % 2 ? 0.95 : 0.99;
    o.kernel_heterogeneity = seed <= 3 ? 1.0 : 10.0;
    o.feature_map =
        seed % 3 ? theory::GarnetFeatures::gaussian : theory::GarnetFeatures::uniform_l1;
    const theory::GarnetMdp mdp = theory::generate_garnet(o);
    const nlohmann::json j = theory::garnet_td_json(o);
    Matrix sum_a = Matrix::Zero(o.features, o.features);
    for (int c = 0; c < o.clients; ++c) {
      const auto& chain = mdp.clients[static_cast<std::size_t>(c)];
      const Matrix abar = td_mean_matrix(mdp.features, chain.stationary, chain.kernel, o.discount);
      const auto [a, b] = client_means(j["clients"][c]);
      // Sums of ≤ n_S² products of O(1) terms (‖φ‖ ≤ 1): n_S²·ε absolute, ×kSafety.
      EXPECT_LT((a - abar).lpNorm<Eigen::Infinity>(), kSafety * o.states * o.states * kEps);
      const Vector bbar = mdp.features.transpose() * chain.stationary.cwiseProduct(chain.reward);
      EXPECT_LT((b - bbar).lpNorm<Eigen::Infinity>(), kSafety * o.states * o.states * kEps);
      const Matrix sym = 0.5 * (abar + abar.transpose());
      const double lambda_sym = Eigen::SelfAdjointEigenSolver<Matrix>(sym).eigenvalues().minCoeff();
      EXPECT_GT(lambda_sym, 0.0) << "seed " << seed << " client " << c;
      EXPECT_GT(min_real_eigenvalue(abar), 0.0) << "seed " << seed << " client " << c;
      // Not symmetric: the antisymmetric part is a visible fraction of Ā (1e-3 ≫ round-off).
      EXPECT_GT((abar - abar.transpose()).norm(), 1e-3 * abar.norm()) << "seed " << seed;
      sum_a += a;
    }
    // x* exists: Σ_c Ā_c is non-singular (also positive definite symmetric part).
    EXPECT_GT(min_real_eigenvalue(sum_a), 0.0);
  }
}

// Planted: the same eigenvalue check fails when D is not the stationary law (off-policy TD):
// two states, φ = (1, 2), both move to state 2; with D uniform Ā = 2.5 − 3ρ < 0 for ρ > 5/6,
// with D = μ = (0, 1) it is 4(1 − ρ) > 0.
TEST(Garnet, StabilityCheckFailsOffPolicy) {
  Matrix phi(2, 1);
  phi << 1, 2;
  Matrix p(2, 2);
  p << 0, 1, 0, 1;
  const double rho = 0.9;
  EXPECT_LT(min_real_eigenvalue(td_mean_matrix(phi, Vector::Constant(2, 0.5), p, rho)), 0.0);
  EXPECT_GT(min_real_eigenvalue(td_mean_matrix(phi, Vector::Unit(2, 1), p, rho)), 0.0);
}

TEST(Garnet, SupportIsRedrawnUntilTheChainIsIrreducible) {
  // One action and two successors on 30 states: many supports are reducible.
  int redrawn = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    GarnetOptions o = small(seed);
    o.states = 30;
    o.actions = 1;
    o.branching = 2;
    const theory::GarnetMdp mdp = theory::generate_garnet(o);
    redrawn += mdp.support_attempts > 1;
    for (const auto& chain : mdp.clients) EXPECT_GT(chain.stationary.minCoeff(), 0.0);
  }
  EXPECT_GT(redrawn, 0);
  GarnetOptions cycle = small(1);
  cycle.states = 30;
  cycle.actions = 1;
  cycle.branching = 1;  // irreducible only if the map is one 30-cycle: probability 29!/30²⁹
  EXPECT_THROW(theory::generate_garnet(cycle), InputError);
}

TEST(Garnet, InvalidOptionsNameTheField) {
  const auto message = [](auto edit) {
    GarnetOptions o = small(1);
    edit(o);
    try {
      theory::garnet_td_json(o);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const double nan = std::nan("");
  EXPECT_NE(message([](GarnetOptions& o) { o.states = 1; }).find("generator.states"),
            std::string::npos);
  EXPECT_NE(message([](GarnetOptions& o) { o.actions = 0; }).find("generator.actions"),
            std::string::npos);
  EXPECT_NE(message([](GarnetOptions& o) { o.branching = 13; }).find("generator.branching"),
            std::string::npos);
  EXPECT_NE(message([](GarnetOptions& o) { o.features = 13; }).find("generator.features"),
            std::string::npos);
  EXPECT_NE(message([](GarnetOptions& o) { o.discount = 1.0; }).find("generator.discount"),
            std::string::npos);
  EXPECT_NE(message([](GarnetOptions& o) { o.clients = 0; }).find("generator.clients"),
            std::string::npos);
  EXPECT_NE(message([&](GarnetOptions& o) {
              o.kernel_heterogeneity = nan;
            }).find("generator.kernel_heterogeneity"),
            std::string::npos);
  EXPECT_NE(message([](GarnetOptions& o) {
              o.reward_heterogeneity = -1;
            }).find("generator.reward_heterogeneity"),
            std::string::npos);
  EXPECT_NE(message([](GarnetOptions& o) { o.batch_size = 0; }).find("generator.batch_size"),
            std::string::npos);
  EXPECT_THROW(theory::parse_garnet_features("normal"), InputError);
  EXPECT_EQ(theory::parse_garnet_features("uniform-l1"), theory::GarnetFeatures::uniform_l1);
}

TEST(Garnet, PresetIsTheCatalogueProblem) {
  const nlohmann::json j = theory::garnet_td_preset();
  EXPECT_EQ(verify::linear_sa_format_error(j), "");
  EXPECT_EQ(j["clients"].size(), 10u);
  EXPECT_EQ(j["clients"][0]["samples"][0]["b"].size(), 8u);
  EXPECT_EQ(j["generator"]["states"], 30);
  EXPECT_EQ(j.dump(), theory::garnet_td_json(theory::garnet_td_preset_options()).dump());
}

}  // namespace
}  // namespace fedverify
