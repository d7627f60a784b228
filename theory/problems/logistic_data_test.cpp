// Logistic-regression data: seeded generators, Dirichlet / iid partitions, CSV loader.
//
// What is checked (each check states its decision rule next to it):
//  - generate_logistic is a pure function of its options (same seed ⇒ bit-identical, other
//    seed ⇒ different; client c's data do not depend on the number of clients);
//  - its knobs do what the header says: label_skew sets the per-client class fraction,
//    feature_shift raises the first-order heterogeneity ζ² (THEORY N3), and `separation` is the
//    norm of the true logistic parameter (a χ² test of the maximum-likelihood estimate);
//  - the Gamma sampler behind the Dirichlet partition has the right mean of log G (digamma) and
//    of G; the Dirichlet partition uses every row once, leaves no client empty, and its label
//    heterogeneity falls as α grows (α → ∞: the iid split);
//  - the CSV loader reads the shipped tables (header of names, and scikit-learn's counts
//    header) and rejects malformed input naming file, line and column;
//  - generated problems round-trip through JSON and theory::minimizer converges on them;
//  - the example problems committed in verify/data/ are what their recorded options generate.
//
// Statistical checks use a family-wise false-alarm level α = 1e-3 per test (Bonferroni over the
// cases inside the test); every random draw is seeded.
//
// Regenerating the example problems:
//   FEDVERIFY_WRITE_EXAMPLES=1 ./logistic_data_test --gtest_filter='*ExampleProblems*'
// rewrites verify/data/logistic_d{5,10}_n10.json.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/special_functions/digamma.hpp>
#include <boost/math/special_functions/trigamma.hpp>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "theory/base/input_error.hpp"
#include "theory/base/rng.hpp"
#include "theory/problems/logistic_data.hpp"
#include "theory/problems/optimum.hpp"
#include "theory/problems/problem_io.hpp"

namespace fedverify::theory {

// The "generator" record of the committed example problems (verify/data/): the options as JSON.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(LogisticGeneratorOptions, dim, clients, samples_per_client, l2,
                                   batch_size, feature_shift, label_skew, separation, seed)

namespace {

namespace fs = std::filesystem;

// The shipped tables live in verify/data/ (FEDVERIFY_SOURCE_DIR, the repository root, is defined
// for every test by cmake/tests.cmake: the test binary does not know the source dir).
const fs::path kDataDir = fs::path(FEDVERIFY_SOURCE_DIR) / "verify" / "data";

constexpr double kFamilyAlpha = 1e-3;  // false-alarm level of each statistical test

// Two-sided standard-normal critical value for `cases` Bonferroni-corrected
// comparisons.
double normal_critical(int cases) {
  return boost::math::quantile(boost::math::normal(), 1.0 - kFamilyAlpha / (2.0 * cases));
}

// Mean over clients of |fraction of +1 labels − ½|: 0 for balanced clients, ½
// for one class each.
double label_imbalance(const LogisticProblem& p) {
  double sum = 0;
  for (int c = 0; c < p.num_clients(); ++c) {
    const Vector& y = p.client(c).labels;
    sum += std::abs((y.array() > 0).cast<double>().mean() - 0.5);
  }
  return sum / p.num_clients();
}

bool same_data(const LogisticProblem& a, const LogisticProblem& b) {
  if (a.num_clients() != b.num_clients() || a.l2() != b.l2() || a.batch_size() != b.batch_size()) {
    return false;
  }
  for (int c = 0; c < a.num_clients(); ++c) {
    if (a.client(c).features != b.client(c).features) return false;
    if (a.client(c).labels != b.client(c).labels) return false;
  }
  return true;
}

// Pools the data of all clients: (features, labels) with the clients' rows
// stacked.
std::pair<Matrix, Vector> pooled(const LogisticProblem& p) {
  Eigen::Index rows = 0;
  for (int c = 0; c < p.num_clients(); ++c) rows += p.client(c).labels.size();
  Matrix a(rows, p.dim());
  Vector y(rows);
  Eigen::Index at = 0;
  for (int c = 0; c < p.num_clients(); ++c) {
    const auto n = p.client(c).labels.size();
    a.middleRows(at, n) = p.client(c).features;
    y.segment(at, n) = p.client(c).labels;
    at += n;
  }
  return {a, y};
}

// minimizer's contract: ‖∇f(x*)‖ ≤ 1e-14 · max(1, ‖∇f(0)‖) or Newton's
// round-off floor; we allow 1e-10 · max(1, ‖∇f(0)‖), far above the floor
// (cond(𝐇) ≲ 1e3 here) and far below any non-converged Newton iterate.
void expect_minimizer_converges(const Problem& p, const std::string& what) {
  const Vector x = minimizer(p);
  const double scale = std::max(1.0, average_gradient(p, Vector::Zero(p.dim())).norm());
  const double g = average_gradient(p, x).norm();
  fmt::print("{}: |x*| = {:.4f}, |grad f(x*)| = {:.2e}\n", what, x.norm(), g);
  EXPECT_LE(g, 1e-10 * scale) << what;
}

// --- Generator -----------------------------------------------------------------------------------

LogisticGeneratorOptions small_options() {
  LogisticGeneratorOptions o;
  o.dim = 4;
  o.clients = 6;
  o.samples_per_client = 30;
  o.l2 = 0.05;
  o.batch_size = 2;
  o.feature_shift = 0.7;
  o.label_skew = 0.4;
  o.separation = 1.5;
  o.seed = 42;
  return o;
}

TEST(LogisticGenerator, SameSeedSameProblemOtherSeedOtherProblem) {
  const auto o = small_options();
  const LogisticProblem a = generate_logistic(o);
  const LogisticProblem b = generate_logistic(o);
  EXPECT_TRUE(same_data(a, b)) << "same options must give a bit-identical problem";

  auto other = o;
  other.seed = 43;
  const LogisticProblem c = generate_logistic(other);
  for (int k = 0; k < o.clients; ++k) {
    EXPECT_NE(a.client(k).features, c.client(k).features) << "client " << k;
  }
  EXPECT_EQ(a.dim(), 4);
  EXPECT_EQ(a.num_clients(), 6);
  EXPECT_EQ(a.client(0).labels.size(), 30);
  EXPECT_EQ(a.batch_size(), 2);
  EXPECT_EQ(a.l2(), 0.05);
}

TEST(LogisticGenerator, ClientDataDoNotDependOnTheNumberOfClients) {
  auto o = small_options();
  const LogisticProblem few = generate_logistic(o);
  o.clients = 9;
  const LogisticProblem many = generate_logistic(o);
  for (int c = 0; c < few.num_clients(); ++c) {
    EXPECT_EQ(few.client(c).features, many.client(c).features) << "client " << c;
    EXPECT_EQ(few.client(c).labels, many.client(c).labels) << "client " << c;
  }
}

// Statement: client c holds n⁺_c = ⌊n π_c + ½⌋ positives, π_c = ½ ±
// ½·label_skew. Prediction: label_imbalance = label_skew / 2 up to rounding,
// |error| ≤ 1/(2n); skew 0 ⇒ |n⁺ − n⁻| ≤ 1 on every client; the imbalance grows
// strictly with the skew.
TEST(LogisticGenerator, LabelSkewSetsTheClassFractionOfEveryClient) {
  auto o = small_options();
  o.samples_per_client = 31;  // odd, so that exact balance is impossible and rounding is tested
  double previous = -1;
  for (const double skew : {0.0, 0.25, 0.5, 0.75, 1.0}) {
    o.label_skew = skew;
    const LogisticProblem p = generate_logistic(o);
    const double imbalance = label_imbalance(p);
    fmt::print(
        "label_skew {:.2f}: mean |fraction(+1) - 1/2| = {:.4f} (model "
        "{:.4f})\n",
        skew, imbalance, skew / 2);
    EXPECT_LE(std::abs(imbalance - skew / 2), 0.5 / o.samples_per_client + 1e-15);
    EXPECT_GT(imbalance, previous);
    previous = imbalance;
    if (skew == 0.0) {
      for (int c = 0; c < p.num_clients(); ++c) {
        EXPECT_LE(std::abs(p.client(c).labels.sum()), 1.0) << "client " << c;
      }
    }
    if (skew == 1.0) {
      for (int c = 0; c < p.num_clients(); ++c) {
        EXPECT_EQ(std::abs(p.client(c).labels.sum()), o.samples_per_client) << "client " << c;
      }
    }
  }
}

// Statement: the per-client mean shift m_c ~ N(0, feature_shift² I) makes
// clients heterogeneous. Measurement: ζ² = (1/N) Σ_c ‖∇f_c(x*)‖² (THEORY N3) on
// a grid of shifts with the same seed (the same noise ξ_j and the same
// standardised shift direction, scaled), balanced labels. Decision: ζ² strictly
// increasing along the grid, and ζ²(2) ≥ 10 ζ²(0): at shift 0 ζ² is pure
// sampling noise, O(1/n) = O(0.01) per coordinate here, while a shift of 2
// moves each client's gradient by O(1) (the check would fail if the shift were
// ignored).
TEST(LogisticGenerator, FeatureShiftRaisesHeterogeneity) {
  auto o = small_options();
  o.label_skew = 0;
  o.samples_per_client = 100;
  double previous = -1, at_zero = 0;
  for (const double shift : {0.0, 0.5, 1.0, 2.0}) {
    o.feature_shift = shift;
    const ProblemConstants k = problem_constants(generate_logistic(o));
    fmt::print("feature_shift {:.1f}: zeta^2 = {:.5f}, zeta_2^2 = {:.5f}\n", shift, k.zeta2,
               k.zeta2_second);
    EXPECT_GT(k.zeta2, previous);
    previous = k.zeta2;
    if (shift == 0.0) at_zero = k.zeta2;
  }
  EXPECT_GE(previous, 10 * at_zero);
}

// Statement: with feature_shift = 0 and balanced labels, P(y = 1 | a) =
// σ(θ_trueᵀa), θ_true = separation · u (header). Setting: d = 5, 4000 samples,
// l2 = 0, separation 2. Prediction: the maximum-likelihood estimate x*
// satisfies n (x* − θ)ᵀ 𝐇 (x* − θ) ~ χ²_d asymptotically (information equality
// 𝐇 = Cov ∇ℓ for a well-specified model; the fixed class counts only reduce the
// variance). Decision: reject if T > χ²_d quantile 1 − α. A mis-scaled signal
// (e.g. separation · u instead of its half in the class means) gives T ≈ n.
TEST(LogisticGenerator, SeparationIsTheNormOfTheTrueParameter) {
  const LogisticGeneratorOptions o{
      .dim = 5, .clients = 8, .samples_per_client = 500, .l2 = 0, .separation = 2, .seed = 7};
  const LogisticProblem p = generate_logistic(o);
  const Vector theta = true_parameter(o);
  ASSERT_NEAR(theta.norm(), o.separation,
              1e-14 * o.separation);  // ‖u‖ = 1 up to round-off
  const Vector x_star = minimizer(p);
  const Matrix h = average_hessian(p, x_star);
  const Vector e = x_star - theta;
  const double n = static_cast<double>(o.clients) * o.samples_per_client;
  const double t = n * e.dot(h * e);
  const double critical =
      boost::math::quantile(boost::math::chi_squared(o.dim), 1.0 - kFamilyAlpha);
  fmt::print(
      "|theta_true| = {:.3f}, |x*| = {:.3f}, |x* - theta_true| = {:.4f}, "
      "T = n e'He = {:.2f} (chi2_{} critical {:.2f})\n",
      theta.norm(), x_star.norm(), e.norm(), t, o.dim, critical);
  EXPECT_LE(t, critical);
}

TEST(LogisticGenerator, RejectsBadOptionsNamingTheField) {
  const auto expect_field = [](auto mutate, const std::string& field) {
    auto o = small_options();
    mutate(o);
    try {
      generate_logistic(o);
      ADD_FAILURE() << "no InputError for " << field;
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()).rfind(field + ":", 0), 0u) << e.what();
    }
  };
  expect_field([](auto& o) { o.dim = 0; }, "dim");
  expect_field([](auto& o) { o.clients = 0; }, "clients");
  expect_field([](auto& o) { o.samples_per_client = 0; }, "samples_per_client");
  expect_field([](auto& o) { o.l2 = -1; }, "l2");
  expect_field([](auto& o) { o.l2 = NAN; }, "l2");
  expect_field([](auto& o) { o.batch_size = 0; }, "batch_size");
  expect_field([](auto& o) { o.feature_shift = -0.1; }, "feature_shift");
  expect_field([](auto& o) { o.feature_shift = INFINITY; }, "feature_shift");
  expect_field([](auto& o) { o.label_skew = 1.5; }, "label_skew");
  expect_field([](auto& o) { o.label_skew = NAN; }, "label_skew");
  expect_field([](auto& o) { o.separation = -1; }, "separation");
}

// --- Gamma and Dirichlet -------------------------------------------------------------------------

// Statement: log_gamma_variate(a) returns log G, G ~ Gamma(a, 1).
// Prediction: E log G = ψ(a), Var log G = ψ'(a) (digamma, trigamma); E G = a,
// Var G = a. Measurement: M = 40000 draws per shape; z-scores of the sample
// means. Decision: |z| ≤ z_{1 − α/(2·cases)}; log-moments for every shape
// (including a = 0.01, where G itself underflows to 0 in about a third of the
// draws and only the log form is usable), moments of G where its variance is
// finite in double precision (a ≥ 0.3).
TEST(Dirichlet, GammaVariatesHaveTheGammaMoments) {
  const std::vector<double> shapes = {0.01, 0.3, 1.0, 4.5, 50.0};
  const int cases = 2 * static_cast<int>(shapes.size()) - 1;
  const double z_max = normal_critical(cases);
  constexpr int kDraws = 40000;
  for (std::size_t s = 0; s < shapes.size(); ++s) {
    const double a = shapes[s];
    estimators::Stream stream(2024, estimators::Purpose::test, s);
    double sum_log = 0, sum_g = 0;
    for (int i = 0; i < kDraws; ++i) {
      const double lg = log_gamma_variate(a, stream);
      sum_log += lg;
      sum_g += std::exp(lg);
    }
    const double z_log =
        (sum_log / kDraws - boost::math::digamma(a)) / std::sqrt(boost::math::trigamma(a) / kDraws);
    const double z_g = (sum_g / kDraws - a) / std::sqrt(a / kDraws);
    fmt::print(
        "Gamma({}): z(mean log G) = {:+.2f}, z(mean G) = {:+.2f} (|z| "
        "<= {:.2f})\n",
        a, z_log, z_g, z_max);
    EXPECT_LE(std::abs(z_log), z_max) << "shape " << a;
    if (a >= 0.3) {
      EXPECT_LE(std::abs(z_g), z_max) << "shape " << a;
    }
  }
}

// Every row exactly once, every client non-empty, for shapes from "one class
// per client" to "iid", including more clients than the Dirichlet draw can fill
// (the repair path).
TEST(Dirichlet, EveryRowOnceEveryClientNonEmpty) {
  Vector labels(60);
  for (int j = 0; j < 60; ++j) labels(j) = (j % 3 == 0) ? 1.0 : -1.0;
  for (const int clients : {1, 7, 30, 60}) {
    for (const double alpha : {1e-3, 0.1, 1.0, 1e3}) {
      const auto parts = dirichlet_assignment(labels, clients, alpha, 11);
      ASSERT_EQ(parts.size(), static_cast<std::size_t>(clients));
      std::vector<int> seen(60, 0);
      for (const auto& rows : parts) {
        EXPECT_FALSE(rows.empty()) << clients << " clients, alpha " << alpha;
        for (const int r : rows) ++seen[r];
      }
      for (int r = 0; r < 60; ++r) {
        EXPECT_EQ(seen[r], 1) << "row " << r << ", " << clients << " clients, alpha " << alpha;
      }
    }
  }
  const auto iid = iid_assignment(60, 7, 3);
  std::vector<int> seen(60, 0);
  for (const auto& rows : iid) {
    EXPECT_TRUE(rows.size() == 8 || rows.size() == 9);  // ⌊60/7⌋ or ⌈60/7⌉
    for (const int r : rows) ++seen[r];
  }
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), 60);
}

// Statement: small α ⇒ each client sees mostly one class; large α ⇒ the pooled
// class ratio. Setting: 2000 pooled balanced rows, N = 10. Measurement: mean
// |fraction(+1) − ½| per client. Decision: strictly decreasing in α over {0.01,
// 0.1, 1, 10, 1e6}; at α = 1e6 every client's class-k count is within 2 of n_k
// / N: the two cumulative cuts contribute ≤ ½ each, and the Dirichlet
// fluctuation of a cumulative share is ≤ n_k / (2√(Nα + 1)) = 0.16 rows, so 2
// rows is > 6 standard deviations.
TEST(Dirichlet, SmallAlphaMeansMoreLabelHeterogeneity) {
  const auto [features, labels] =
      pooled(generate_logistic({.dim = 3, .clients = 1, .samples_per_client = 2000}));
  const int clients = 10;
  double previous = 1;
  for (const double alpha : {0.01, 0.1, 1.0, 10.0, 1e6}) {
    const LogisticProblem p = partition_dirichlet(features, labels, clients, alpha, 5, 0.1, 1);
    const double imbalance = label_imbalance(p);
    fmt::print("Dirichlet alpha {:g}: mean |fraction(+1) - 1/2| = {:.4f}\n", alpha, imbalance);
    EXPECT_LT(imbalance, previous) << "alpha " << alpha;
    previous = imbalance;
    if (alpha == 1e6) {
      for (int c = 0; c < clients; ++c) {
        const Vector& y = p.client(c).labels;
        EXPECT_NEAR(static_cast<double>((y.array() > 0).count()), 1000.0 / clients, 2.0)
            << "client " << c;
        EXPECT_NEAR(static_cast<double>((y.array() < 0).count()), 1000.0 / clients, 2.0)
            << "client " << c;
      }
    }
  }
}

TEST(Dirichlet, DeterministicPerSeedAndRejectsBadInput) {
  Vector labels(40);
  for (int j = 0; j < 40; ++j) labels(j) = j < 15 ? 1.0 : -1.0;
  EXPECT_EQ(dirichlet_assignment(labels, 5, 0.5, 9), dirichlet_assignment(labels, 5, 0.5, 9));
  EXPECT_NE(dirichlet_assignment(labels, 5, 0.5, 9), dirichlet_assignment(labels, 5, 0.5, 10));
  EXPECT_THROW(dirichlet_assignment(labels, 5, 0.0, 9), InputError);
  EXPECT_THROW(dirichlet_assignment(labels, 5, -1.0, 9), InputError);
  EXPECT_THROW(dirichlet_assignment(labels, 41, 1.0, 9), InputError);
  EXPECT_THROW(dirichlet_assignment(labels, 0, 1.0, 9), InputError);
  labels(3) = 0.0;
  EXPECT_THROW(dirichlet_assignment(labels, 5, 1.0, 9), InputError);
}

// --- CSV -----------------------------------------------------------------------------------------

// verify/data/logistic_small.csv: 40 rows of a synthetic table written for
// these tests (4 numeric features, string classes "no" (22 rows) / "yes" (18
// rows)); the first data row is "12.257,20.204,0.0691,42,no".
// logistic_small_sklearn.csv holds the same rows in scikit-learn's format
// ("40,4,no,yes" header, class indices 0 = no, 1 = yes).
TEST(CsvTable, ParsesTheShippedTable) {
  const LabelledTable t = load_csv_table((kDataDir / "logistic_small.csv").string());
  ASSERT_EQ(t.features.rows(), 40);
  ASSERT_EQ(t.features.cols(), 4);
  EXPECT_EQ(t.feature_names, (std::vector<std::string>{"radius", "texture", "smoothness", "age"}));
  EXPECT_EQ(t.class_names[0],
            "no");  // sorted lexicographically: "no" ↦ −1, "yes" ↦ +1
  EXPECT_EQ(t.class_names[1], "yes");
  EXPECT_EQ((t.labels.array() > 0).count(), 18);
  EXPECT_EQ((t.labels.array() < 0).count(), 22);
  EXPECT_EQ(t.features(0, 0), 12.257);
  EXPECT_EQ(t.features(0, 2), 0.0691);
  EXPECT_EQ(t.features(0, 3), 42.0);
  EXPECT_EQ(t.labels(0), -1.0);

  const LabelledTable s = load_csv_table((kDataDir / "logistic_small_sklearn.csv").string(),
                                         {.header = CsvHeader::sklearn_counts});
  EXPECT_EQ(s.features, t.features);
  EXPECT_EQ(s.labels, t.labels);
  EXPECT_EQ(s.class_names, t.class_names);

  // The same label column by name and by index, with the other class as +1.
  const LabelledTable flipped = load_csv_table((kDataDir / "logistic_small.csv").string(),
                                               {.label_name = "class", .positive_label = "no"});
  EXPECT_EQ(flipped.labels, -t.labels);
  CsvOptions by_index;
  by_index.label_index = 4;
  EXPECT_EQ(load_csv_table((kDataDir / "logistic_small.csv").string(), by_index).labels, t.labels);
}

// z-scores: every column has mean 0 and population standard deviation 1 up to
// round-off (a sum of 40 terms of size ≤ 4: error ≤ 40 · 4 · 2⁻⁵³ ≈ 2e-14;
// tolerance 1e-13).
TEST(CsvTable, StandardisesAndAppendsAnIntercept) {
  const LabelledTable t = load_csv_table((kDataDir / "logistic_small.csv").string(),
                                         {.standardize = true, .intercept = true});
  ASSERT_EQ(t.features.cols(), 5);
  EXPECT_EQ(t.feature_names.back(), "intercept");
  constexpr double kRoundOff = 1e-13;
  for (int i = 0; i < 4; ++i) {
    const auto col = t.features.col(i);
    EXPECT_NEAR(col.mean(), 0.0, kRoundOff) << t.feature_names[i];
    EXPECT_NEAR((col.array() - col.mean()).square().mean(), 1.0, kRoundOff) << t.feature_names[i];
  }
  EXPECT_TRUE((t.features.col(4).array() == 1.0).all());
}

class CsvErrors : public ::testing::Test {
 protected:
  std::string write(const std::string& name, const std::string& text) {
    const fs::path dir = fs::temp_directory_path() / "fedverify_logistic_data_test";
    fs::create_directories(dir);
    const fs::path path = dir / name;
    std::ofstream(path) << text;
    return path.string();
  }
  // Loads `text` and returns the InputError message (fails the test if nothing
  // is thrown).
  std::string error(const std::string& name, const std::string& text, CsvOptions o = {}) {
    const std::string path = write(name, text);
    try {
      load_csv_table(path, o);
    } catch (const InputError& e) {
      const std::string message = e.what();
      EXPECT_EQ(message.rfind(path + ":", 0), 0u)
          << "message must start with the file: " << message;
      fmt::print("{}\n", message);
      return message;
    }
    ADD_FAILURE() << "no InputError for " << name;
    return {};
  }
};

TEST_F(CsvErrors, NameFileLineAndColumn) {
  const std::string head = "a,b,c,label\n1,2,3,0\n";
  const auto has = [](const std::string& m, const std::string& part) {
    return m.find(part) != std::string::npos;
  };
  std::string m = error("not_a_number.csv", head + "4,5,6,1\n7,x8,9,0\n");
  EXPECT_TRUE(has(m, "line 4, column 2 (b)")) << m;
  EXPECT_TRUE(has(m, "\"x8\"")) << m;
  m = error("short_row.csv", head + "4,5,1\n");
  EXPECT_TRUE(has(m, "line 3: expected 4 fields, found 3")) << m;
  m = error("third_class.csv", head + "4,5,6,1\n\n7,8,9,2\n");
  EXPECT_TRUE(has(m, "line 5, column 4 (label)")) << m;  // the blank line still counts
  m = error("one_class.csv", head + "4,5,6,0\n");
  EXPECT_TRUE(has(m, "column 4 (label)")) << m;
  m = error("nan.csv", head + "4,nan,6,1\n");
  EXPECT_TRUE(has(m, "line 3, column 2 (b)")) << m;
  m = error("quote.csv", head + "4,\"5,6,1\n");
  EXPECT_TRUE(has(m, "line 3, column 2")) << m;
  m = error("constant.csv", head + "4,2,6,1\n", {.standardize = true});
  EXPECT_TRUE(has(m, "column 2 (b)")) << m;
  m = error("no_such_label.csv", head, {.label_name = "y"});
  EXPECT_TRUE(has(m, "\"y\"")) << m;
  m = error("bad_positive.csv", head + "4,5,6,1\n", {.positive_label = "yes"});
  EXPECT_TRUE(has(m, "positive_label")) << m;
  m = error("sklearn_count.csv", "3,3,no,yes\n1,2,3,0\n4,5,6,1\n",
            {.header = CsvHeader::sklearn_counts});
  EXPECT_TRUE(has(m, "announces 3 samples")) << m;
  m = error("sklearn_label.csv", "2,3,no,yes\n1,2,3,0\n4,5,6,2\n",
            {.header = CsvHeader::sklearn_counts});
  EXPECT_TRUE(has(m, "line 3, column 4 (target)")) << m;
  EXPECT_THROW(load_csv_table((kDataDir / "does_not_exist.csv").string()), InputError);
}

TEST_F(CsvErrors, AcceptsQuotesCrlfAndOtherDelimiters) {
  const std::string path =
      write("quoted.csv", "\"x 1\";\"y\"\r\n 1.5 ; \"cat\"\r\n-2e-1;\"dog\"\r\n+3;cat\r\n");
  const LabelledTable t = load_csv_table(path, {.delimiter = ';', .positive_label = "dog"});
  EXPECT_EQ(t.feature_names, std::vector<std::string>{"x 1"});
  EXPECT_EQ(t.features.col(0), (Vector(3) << 1.5, -0.2, 3.0).finished());
  EXPECT_EQ(t.labels, (Vector(3) << -1, 1, -1).finished());
}

// The scikit-learn CSV format end to end (header of counts and class names, standardisation,
// intercept, Dirichlet split over 10 clients, minimiser). On the Wisconsin breast-cancer table
// of Debian's python3-sklearn when it is installed or named by FEDVERIFY_BREAST_CANCER_CSV
// (569 samples, 30 features, 212 malignant ↦ −1, 357 benign ↦ +1: UCI / scikit-learn
// documentation); otherwise on the shipped table in the same format (40 × 4, 22 "no",
// 18 "yes"). Either way every assertion runs.
TEST(CsvTable, ScikitLearnFormatEndToEnd) {
  struct Expected {
    std::string path;
    Eigen::Index rows, features;
    std::string negative, positive;
    Eigen::Index positives;
  };
  const char* from_env = std::getenv("FEDVERIFY_BREAST_CANCER_CSV");
  const std::string installed =
      from_env != nullptr
          ? from_env
          : "/usr/lib/python3/dist-packages/sklearn/datasets/data/breast_cancer.csv";
  const Expected e =
      fs::exists(installed)
          ? Expected{installed, 569, 30, "malignant", "benign", 357}
          : Expected{(kDataDir / "logistic_small_sklearn.csv").string(), 40, 4, "no", "yes", 18};
  fmt::print("scikit-learn format table: {}\n", e.path);
  const LabelledTable t = load_csv_table(
      e.path, {.header = CsvHeader::sklearn_counts, .standardize = true, .intercept = true});
  EXPECT_EQ(t.features.rows(), e.rows);
  EXPECT_EQ(t.features.cols(), e.features + 1);  // + intercept
  EXPECT_EQ(t.class_names[0], e.negative);
  EXPECT_EQ(t.class_names[1], e.positive);
  EXPECT_EQ((t.labels.array() > 0).count(), e.positives);
  const LogisticProblem p = partition_dirichlet(t.features, t.labels, 10, 0.5, 1, 1e-2, 8);
  expect_minimizer_converges(p, e.path + ", Dirichlet(0.5) over 10 clients");
}

// --- Problems from data: JSON round trip and minimiser -------------------------------------------

TEST(LogisticData, ProblemsRoundTripThroughJsonAndHaveAMinimiser) {
  const LogisticProblem generated = generate_logistic(small_options());
  const LabelledTable t = load_csv_table((kDataDir / "logistic_small.csv").string(),
                                         {.standardize = true, .intercept = true});
  const LogisticProblem dirichlet = partition_dirichlet(t.features, t.labels, 4, 0.3, 2, 0.01, 4);
  const LogisticProblem iid = partition_iid(t.features, t.labels, 4, 2, 0.01, 4);
  for (const auto* p : {&generated, &dirichlet, &iid}) {
    const auto parsed = parse_problem(problem_to_json(*p), "round trip");
    const auto* back = dynamic_cast<const LogisticProblem*>(parsed.get());
    ASSERT_NE(back, nullptr);
    EXPECT_TRUE(same_data(*p, *back));
  }
  expect_minimizer_converges(generated, "generated (d=4, N=6)");
  expect_minimizer_converges(dirichlet, "CSV table, Dirichlet(0.3) over 4 clients");
  expect_minimizer_converges(iid, "CSV table, iid over 4 clients");
}

// --- Example problems committed in verify/data/ --------------------------------------------------

// The problem file with a "generator" record of its options (parse_problem
// ignores it), one feature row per line so that the file diffs well.
void write_example(const fs::path& path, const LogisticGeneratorOptions& o) {
  const nlohmann::json j = problem_to_json(generate_logistic(o));
  std::ofstream out(path);
  out << "{\"kind\": \"logistic\", \"l2\": " << j["l2"].dump()
      << ", \"batch_size\": " << j["batch_size"].dump()
      << ",\n \"generator\": " << nlohmann::json(o).dump() << ",\n \"clients\": [\n";
  for (std::size_t c = 0; c < j["clients"].size(); ++c) {
    const auto& client = j["clients"][c];
    std::vector<int> labels;  // ±1, written as integers
    for (const auto& y : client["labels"]) labels.push_back(static_cast<int>(y.get<double>()));
    out << "  {\"labels\": " << nlohmann::json(labels).dump() << ",\n   \"features\": [\n";
    for (std::size_t r = 0; r < client["features"].size(); ++r) {
      out << "    " << client["features"][r].dump()
          << (r + 1 < client["features"].size() ? ",\n" : "]}");
    }
    out << (c + 1 < j["clients"].size() ? ",\n" : "\n]}\n");
  }
}

// Two heterogeneous examples for later claims: N = 10 clients of 40 samples,
// moderate feature shift and label skew, minibatch size 1 (so the stochastic
// gradient is noisy).
std::vector<std::pair<std::string, LogisticGeneratorOptions>> example_options() {
  LogisticGeneratorOptions o;
  o.clients = 10;
  o.samples_per_client = 40;
  o.l2 = 0.1;
  o.batch_size = 1;
  o.feature_shift = 0.5;
  o.label_skew = 0.3;
  o.separation = 2.0;
  auto d5 = o, d10 = o;
  d5.dim = 5;
  d5.seed = 5;
  d10.dim = 10;
  d10.seed = 10;
  return {{"logistic_d5_n10.json", d5}, {"logistic_d10_n10.json", d10}};
}

// Decision: the committed file equals what its recorded options generate, entry
// by entry, to 1e-14 relative: the JSON holds round-trip doubles, so any
// difference can only come from a different libm in Box–Muller (a few ulp),
// never from a changed generator.
TEST(LogisticData, ExampleProblemsAreWhatTheirOptionsGenerate) {
  if (std::getenv("FEDVERIFY_WRITE_EXAMPLES") != nullptr) {
    for (const auto& [name, o] : example_options()) write_example(kDataDir / name, o);
  }
  for (const auto& [name, expected_options] : example_options()) {
    const fs::path path = kDataDir / name;
    std::ifstream in(path);
    ASSERT_TRUE(in) << path;
    const nlohmann::json j = nlohmann::json::parse(in);
    const auto o = j.at("generator").get<LogisticGeneratorOptions>();
    EXPECT_EQ(nlohmann::json(o), nlohmann::json(expected_options)) << name;
    const auto file = load_problem(path.string());
    const auto& p = dynamic_cast<const LogisticProblem&>(*file);
    const LogisticProblem regenerated = generate_logistic(o);
    ASSERT_EQ(p.num_clients(), regenerated.num_clients());
    EXPECT_EQ(p.l2(), regenerated.l2());
    EXPECT_EQ(p.batch_size(), regenerated.batch_size());
    for (int c = 0; c < p.num_clients(); ++c) {
      const Matrix& a = p.client(c).features;
      const Matrix& b = regenerated.client(c).features;
      ASSERT_EQ(a.rows(), b.rows());
      ASSERT_EQ(a.cols(), b.cols());
      EXPECT_LE((a - b).cwiseAbs().maxCoeff(), 1e-14 * (1.0 + b.cwiseAbs().maxCoeff())) << name;
      EXPECT_EQ(p.client(c).labels, regenerated.client(c).labels) << name;
    }
    const ProblemConstants k = problem_constants(p);
    fmt::print(
        "{}: d = {}, N = {}, mu = {:.3f}, L = {:.3f}, mu_local = "
        "{:.3f}, L_local = {:.3f}, "
        "zeta^2 = {:.4f}, zeta_2^2 = {:.4f}, sigma*^2 = {:.4f}, |x*| = "
        "{:.4f}\n",
        name, p.dim(), p.num_clients(), k.mu, k.l, k.mu_local, k.l_local, k.zeta2, k.zeta2_second,
        k.sigma_star2, k.x_star.norm());
    expect_minimizer_converges(p, name);
  }
}

}  // namespace
}  // namespace fedverify::theory
