// The study's data (theory/problems/multinomial_data.hpp): the table reader on small files, plain
// and gzip, with every malformed case naming the file and line; the python3-sklearn tables; the
// seeded split and its standardisation; the K-class Dirichlet label split (statistical: the
// shares' mean and variance against the Dirichlet's, α declared); FedProx's synthetic generator.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "theory/base/input_error.hpp"
#include "theory/base/testing/statistical_checks.hpp"
#include "theory/problems/logistic_data.hpp"
#include "theory/problems/multinomial_data.hpp"

namespace fedverify {
namespace {

namespace fs = std::filesystem;
using theory::ClassificationData;
using theory::TableHeader;

class TempDir {
 public:
  TempDir() : path_(fs::temp_directory_path() / fmt::format("fedverify-md-{}", ::getpid())) {
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string write(const std::string& name, const std::string& text, bool gzip = false) const {
    const std::string p = (path_ / name).string();
    if (gzip) {
      gzFile f = gzopen(p.c_str(), "wb");
      gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
      gzclose(f);
    } else {
      std::ofstream(p) << text;
    }
    return p;
  }

 private:
  fs::path path_;
};

// The InputError message of read_class_table(path, header), or "" when it did not throw.
std::string error_of(const std::string& path, TableHeader header) {
  try {
    theory::read_class_table(path, header);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ClassTable, ReadsPlainAndGzipWithAndWithoutCounts) {
  const TempDir dir;
  const std::string rows = "1.5,2,0\n-3,4e-1,2\n0,0,1\n";
  for (const bool gzip : {false, true}) {
    const ClassificationData t = theory::read_class_table(
        dir.write(gzip ? "a.csv.gz" : "a.csv", rows, gzip), TableHeader::none);
    ASSERT_EQ(t.samples(), 3);
    EXPECT_EQ(t.dim(), 2);
    EXPECT_EQ(t.classes, 3);
    EXPECT_EQ(t.labels, (std::vector<int>{0, 2, 1}));
    EXPECT_DOUBLE_EQ(t.features(1, 1), 0.4);
  }
  const ClassificationData c = theory::read_class_table(
      dir.write("c.csv", "3,2,neg,pos\n1,2,0\n3,4,1\n5,6,0\n"), TableHeader::sklearn_counts);
  EXPECT_EQ(c.classes, 2);
  EXPECT_EQ(c.samples(), 3);
}

TEST(ClassTable, MalformedFilesNameTheFileAndLine) {
  const TempDir dir;
  struct Case {
    std::string text;
    TableHeader header;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"1,2,0\n1,0\n", TableHeader::none, "line 2: 2 fields"},
      {"1,x,0\n", TableHeader::none, "line 1, field 2"},
      {"1,2,0.5\n", TableHeader::none, "not a class index"},
      {"1,2,-1\n", TableHeader::none, "not a class index"},
      {"1,2,0\n", TableHeader::none, "single class"},
      {"", TableHeader::none, "no data line"},
      {"4,2,a,b\n1,2,0\n3,4,1\n", TableHeader::sklearn_counts, "declares 4 × 2"},
      {"2,2,a,b\n1,2,0\n3,4,2\n", TableHeader::sklearn_counts, "names 2 classes"},
      {"2,2\n1,2,0\n", TableHeader::sklearn_counts, "class names"},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string path = dir.write(fmt::format("bad{}.csv", i), cases[i].text);
    const std::string message = error_of(path, cases[i].header);
    EXPECT_NE(message.find(path), std::string::npos) << "case " << i << ": " << message;
    EXPECT_NE(message.find(cases[i].expected), std::string::npos)
        << "case " << i << ": " << message;
  }
  const std::string missing = (fs::temp_directory_path() / "fedverify-no-such-table.csv").string();
  EXPECT_NE(error_of(missing, TableHeader::none).find("cannot open"), std::string::npos);
  // A truncated gzip stream is an error, not a short table.
  const std::string gz = dir.write("t.csv.gz", std::string(4000, '1') + ",0\n1,1\n", true);
  const auto size = fs::file_size(gz);
  fs::resize_file(gz, size / 2);
  EXPECT_NE(error_of(gz, TableHeader::none), "");
}

TEST(ClassTable, SklearnTablesHaveTheirDocumentedShapes) {
  const std::string digits = theory::sklearn_table_path("digits.csv.gz");
  const std::string cancer = theory::sklearn_table_path("breast_cancer.csv");
  if (!fs::exists(digits) || !fs::exists(cancer)) GTEST_SKIP() << "python3-sklearn not installed";
  const ClassificationData d = theory::read_digits(digits);
  EXPECT_EQ(d.samples(), 1797);
  EXPECT_EQ(d.dim(), 64);
  EXPECT_EQ(d.classes, 10);
  const ClassificationData c = theory::read_breast_cancer(cancer);
  EXPECT_EQ(c.samples(), 569);
  EXPECT_EQ(c.dim(), 30);
  EXPECT_EQ(c.classes, 2);
  EXPECT_EQ(std::count(c.labels.begin(), c.labels.end(), 1), 357);  // benign (sklearn's count)
}

TEST(Split, PartitionsTheRowsAndStandardisesWithTrainingStatistics) {
  ClassificationData t{Matrix(20, 2), {}, 2};
  for (int j = 0; j < 20; ++j) {
    t.features(j, 0) = j;    // row id
    t.features(j, 1) = 7.0;  // constant: only centred
    t.labels.push_back(j % 2);
  }
  theory::DataSplit s = theory::split_rows(t, 0.6, 0.2, 5);
  EXPECT_EQ(s.train.samples(), 12);
  EXPECT_EQ(s.validation.samples(), 4);
  EXPECT_EQ(s.test.samples(), 4);
  std::set<int> ids;
  for (const auto* part : {&s.train, &s.validation, &s.test}) {
    for (int j = 0; j < part->samples(); ++j) {
      const int id = static_cast<int>(part->features(j, 0));
      ids.insert(id);
      EXPECT_EQ(part->labels[static_cast<std::size_t>(j)], id % 2);
    }
  }
  EXPECT_EQ(ids.size(), 20u);
  const theory::DataSplit again = theory::split_rows(t, 0.6, 0.2, 5);
  EXPECT_EQ(again.test.features, s.test.features);
  const double train_mean = s.train.features.col(0).mean();
  theory::standardise(s);
  ASSERT_EQ(s.train.dim(), 3);
  EXPECT_NEAR(s.train.features.col(0).mean(), 0.0, 1e-14);
  EXPECT_NEAR(s.train.features.col(0).squaredNorm() / 12.0, 1.0, 1e-14);
  EXPECT_TRUE((s.test.features.col(1).array() == 0.0).all());
  EXPECT_TRUE((s.validation.features.col(2).array() == 1.0).all());
  EXPECT_NE(train_mean, 0.0);
  EXPECT_THROW(theory::split_rows(t, 0.9, 0.2, 5), InputError);
  EXPECT_THROW(theory::split_rows(t, 0.6, 0.0, 5), InputError);
}

// Dirichlet(α) label split: client c's share p_kc of class k is a Beta(α, (N − 1)α) marginal of
// Dirichlet(α 1_N), mean 1/N and variance (N − 1)/(N²(Nα + 1)); the rounding of the cumulative
// shares moves a share by < 1/n_k and the non-emptiness repair by ≤ N/n_k, small here
// (n_k = 4000, N = 5; the allowances below). Over R = 400 seeds the mean and the variance of the
// share of client 0, class 1 are compared with these by z tests at family-wise α = 0.001
// (Bonferroni over the two).
TEST(Dirichlet, ClassSharesHaveTheDirichletMeanAndVariance) {
  constexpr double kAlpha = 0.001;
  constexpr int kClients = 5, kClasses = 3, kPerClass = 4000, kSeeds = 400;
  constexpr double alpha = 0.3;
  std::vector<int> labels;
  for (int k = 0; k < kClasses; ++k) labels.insert(labels.end(), kPerClass, k);
  std::vector<double> share, square;
  const double mean = 1.0 / kClients;
  for (int seed = 1; seed <= kSeeds; ++seed) {
    const auto a = theory::dirichlet_class_assignment(labels, kClasses, kClients, alpha, seed);
    std::size_t total = 0;
    for (const auto& rows : a) total += rows.size();
    ASSERT_EQ(total, labels.size());
    const double s = static_cast<double>(std::count_if(
                         a[0].begin(), a[0].end(),
                         [&](int j) { return labels[static_cast<std::size_t>(j)] == 1; })) /
                     kPerClass;
    share.push_back(s);
    square.push_back((s - mean) * (s - mean));
  }
  const double variance = (kClients - 1.0) / (kClients * kClients * (kClients * alpha + 1.0));
  // Deterministic allowances: a share moves by δ ≤ (N + 1)/n_k rows' worth (rounding of both cut
  // points, and the repair), so the mean by δ and (s − 1/N)² by ≤ 2δ (|s − 1/N| ≤ 1).
  const double delta = (kClients + 1.0) / kPerClass;
  auto mean_se = [](const std::vector<double>& v) {
    const Eigen::Map<const Vector> x(v.data(), static_cast<Eigen::Index>(v.size()));
    const double m = x.mean();
    return std::make_pair(
        m, std::sqrt((x.array() - m).square().sum() / (static_cast<double>(v.size()) - 1.0) /
                     static_cast<double>(v.size())));
  };
  const auto [m, m_se] = mean_se(share);
  const auto [v, v_se] = mean_se(square);
  const double z = verify::z_two_sided(kAlpha, 2);  // R = 400: the normal reference
  fmt::print(
      "Dirichlet(0.3) share: mean {:.4f} ± {:.4f} (expected {:.4f}); variance {:.5f} ± "
      "{:.5f} (expected {:.5f}); z = {:.2f}\n",
      m, m_se, mean, v, v_se, variance, z);
  EXPECT_LE(std::abs(m - mean), delta + z * m_se);
  EXPECT_LE(std::abs(v - variance), 2.0 * delta + z * v_se);
  // The binary split is the K = 2 case, bit for bit.
  Vector pm(8);
  pm << 1, -1, 1, 1, -1, -1, 1, -1;
  const std::vector<int> classes{1, 0, 1, 1, 0, 0, 1, 0};
  EXPECT_EQ(theory::dirichlet_assignment(pm, 3, alpha, 9),
            theory::dirichlet_class_assignment(classes, 2, 3, alpha, 9));
  EXPECT_THROW(theory::dirichlet_class_assignment({0, 3}, 3, 1, alpha, 1), InputError);
}

TEST(Synthetic, FedproxGeneratorShapesDeterminismAndCovariance) {
  const theory::SyntheticOptions o{
      .alpha = 1, .beta = 1, .clients = 30, .max_samples = 1000, .seed = 3};
  const auto a = theory::synthetic_fedprox(o);
  const auto b = theory::synthetic_fedprox(o);
  ASSERT_EQ(a.size(), 30u);
  Matrix centred(0, theory::kSyntheticFeatures);
  for (std::size_t c = 0; c < a.size(); ++c) {
    EXPECT_GE(a[c].samples(), 50);
    EXPECT_LE(a[c].samples(), 1000);
    EXPECT_EQ(a[c].dim(), theory::kSyntheticFeatures);
    EXPECT_EQ(a[c].classes, theory::kSyntheticClasses);
    EXPECT_EQ(a[c].features, b[c].features);
    EXPECT_EQ(a[c].labels, b[c].labels);
    theory::validate(a[c], "synthetic");
  }
  // Within a client the features are N(v_k, Σ), Σ = diag(j^−1.2): the pooled within-client
  // variance of feature j, from n = Σ_k (n_k − 1) degrees of freedom, has relative sd √(2/n);
  // checked at 4.5 sd (two-sided α ≈ 7e-6 per feature, 60 features).
  double dof = 0;
  Vector ss = Vector::Zero(theory::kSyntheticFeatures);
  for (const auto& t : a) {
    const Matrix c = t.features.rowwise() - t.features.colwise().mean();
    ss += c.colwise().squaredNorm().transpose();
    dof += t.samples() - 1;
  }
  for (int j = 0; j < theory::kSyntheticFeatures; ++j) {
    const double expected = std::pow(j + 1.0, -1.2);
    EXPECT_NEAR(ss(j) / dof / expected, 1.0, 4.5 * std::sqrt(2.0 / dof)) << "feature " << j;
  }
  EXPECT_THROW(theory::synthetic_fedprox({.alpha = -1}), InputError);
  EXPECT_THROW(theory::synthetic_fedprox({.max_samples = 10}), InputError);
}

}  // namespace
}  // namespace fedverify
