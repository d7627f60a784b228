// The diabetes least-squares generator (theory/problems/diabetes_data.hpp) and the number-table
// reader it uses (multinomial_data.hpp, read_number_table): the table is python3-sklearn's
// 442 × 10, the features are standardised with an intercept, every row goes to exactly one client,
// the three splits do what they say, the JSON follows docs/problem-formats-linear-sa.md's `least-squares` format field by
// field, same seed ⇒ same bytes, invalid options name the field.
// Tolerances: round-off of a mean/variance over n = 442 values (n·ε relative, × kSafety).
#include "theory/problems/diabetes_data.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include <unistd.h>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "theory/base/input_error.hpp"
#include "theory/base/testing/round_off.hpp"
#include "theory/problems/multinomial_data.hpp"
#include "theory/problems/testing/design_format.hpp"

namespace fedverify {
namespace {

namespace fs = std::filesystem;
using theory::DiabetesOptions;
using theory::DiabetesSplit;
using verify::kEps;
using verify::kSafety;

constexpr int kRows = 442;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

// Mean over clients of the total-variation distance between the client's target-bin histogram
// and the pooled one: 0 when every client sees the pooled mix, → 1 − 1/bins for one bin each.
double bin_skew(const std::vector<std::vector<int>>& assignment, const std::vector<int>& bins,
                int num_bins) {
  std::vector<double> pooled(static_cast<std::size_t>(num_bins), 0.0);
  for (const int k : bins) pooled[static_cast<std::size_t>(k)] += 1.0 / kRows;
  double sum = 0;
  for (const auto& rows : assignment) {
    std::vector<double> mine(static_cast<std::size_t>(num_bins), 0.0);
    for (const int r : rows) {
      mine[static_cast<std::size_t>(bins[static_cast<std::size_t>(r)])] +=
          1.0 / static_cast<double>(rows.size());
    }
    double tv = 0;
    for (std::size_t k = 0; k < mine.size(); ++k) tv += 0.5 * std::abs(mine[k] - pooled[k]);
    sum += tv;
  }
  return sum / static_cast<double>(assignment.size());
}

TEST(Diabetes, ReadsPythonSklearnTable) {
  const theory::RegressionTable raw = theory::read_diabetes(DiabetesOptions{}.data_dir);
  ASSERT_EQ(raw.features.rows(), kRows);
  ASSERT_EQ(raw.features.cols(), 10);
  // The first line of diabetes_data_raw.csv.gz and of diabetes_target.csv.gz (zcat | head -1).
  const std::vector<double> first = {59, 2, 32.1, 101.0, 157, 93.2, 38.0, 4.0, 4.8598, 87};
  for (int j = 0; j < 10; ++j) EXPECT_EQ(raw.features(0, j), first[static_cast<std::size_t>(j)]);
  EXPECT_EQ(raw.targets(0), 151.0);
  EXPECT_EQ(raw.targets(kRows - 1), 57.0);  // zcat diabetes_target.csv.gz | tail -1
}

TEST(Diabetes, FeaturesAreStandardisedWithAnIntercept) {
  const theory::RegressionTable raw = theory::read_diabetes(DiabetesOptions{}.data_dir);
  for (const bool target : {true, false}) {
    const theory::RegressionTable t = theory::standardised(raw, target);
    ASSERT_EQ(t.features.cols(), 11);
    // Mean and population variance of z-scores over n values: n·ε round-off, ×kSafety.
    const double tol = kSafety * kRows * kEps;
    for (int j = 0; j < 10; ++j) {
      EXPECT_NEAR(t.features.col(j).mean(), 0.0, tol) << j;
      EXPECT_NEAR(t.features.col(j).squaredNorm() / kRows, 1.0, tol) << j;
    }
    EXPECT_TRUE((t.features.col(10).array() == 1.0).all());
    if (target) {
      EXPECT_NEAR(t.targets.mean(), 0.0, tol);
      EXPECT_NEAR(t.targets.squaredNorm() / kRows, 1.0, tol);
    } else {
      EXPECT_EQ(t.targets, raw.targets);
    }
  }
  // The check above could fail: the raw table is not standardised.
  EXPECT_GT(std::abs(raw.features.col(0).mean()), 1.0);
}

TEST(Diabetes, FollowsTheDesignFormatAndUsesEveryRowOnce) {
  const theory::RegressionTable raw = theory::read_diabetes(DiabetesOptions{}.data_dir);
  for (const auto split :
       {DiabetesSplit::iid, DiabetesSplit::dirichlet, DiabetesSplit::covariate_shift}) {
    DiabetesOptions o;
    o.split = split;
    o.clients = 7;
    o.batch_size = 3;
    o.l2 = 0.25;
    const nlohmann::json j = theory::diabetes_least_squares_json(o);
    EXPECT_EQ(verify::least_squares_format_error(j), "") << theory::to_string(split);
    EXPECT_EQ(j["l2"], 0.25);
    EXPECT_EQ(j["batch_size"], 3);
    ASSERT_EQ(j["clients"].size(), 7u);
    const auto& g = j["generator"];
    EXPECT_EQ(g["name"], "diabetes");
    EXPECT_EQ(g["split"], theory::to_string(split));
    EXPECT_EQ(g["clients"], 7);
    EXPECT_EQ(g["alpha"], 0.5);
    EXPECT_EQ(g["bins"], 5);
    EXPECT_EQ(g["shift_feature"], "bmi");
    EXPECT_EQ(g["l2"], 0.25);
    EXPECT_EQ(g["batch_size"], 3);
    EXPECT_EQ(g["standardise_target"], true);
    EXPECT_EQ(g["seed"], 1);
    EXPECT_EQ(g.size(), 10u);
    EXPECT_EQ(nlohmann::json::parse(j.dump()), j);
    // Every client's rows are rows of the standardised table, each row used exactly once.
    const theory::RegressionTable table = theory::standardised(raw, true);
    const auto assignment = theory::diabetes_assignment(raw, o);
    std::vector<int> used(kRows, 0);
    for (int c = 0; c < 7; ++c) {
      const auto& client = j["clients"][c];
      const auto& rows = assignment[static_cast<std::size_t>(c)];
      ASSERT_EQ(client["features"].size(), rows.size());
      ASSERT_FALSE(rows.empty());
      for (std::size_t k = 0; k < rows.size(); ++k) {
        ++used[static_cast<std::size_t>(rows[k])];
        EXPECT_EQ(client["targets"][k].get<double>(), table.targets(rows[k]));
        for (int f = 0; f < 11; ++f) {
          EXPECT_EQ(client["features"][k][f].get<double>(), table.features(rows[k], f));
        }
      }
    }
    EXPECT_TRUE(std::all_of(used.begin(), used.end(), [](int u) { return u == 1; }));
  }
  // The checker rejects a targets array of the wrong length and an unknown client field.
  nlohmann::json bad = theory::diabetes_preset();
  bad["clients"][2]["targets"].push_back(0.0);
  EXPECT_NE(verify::least_squares_format_error(bad), "");
  bad = theory::diabetes_preset();
  bad["clients"][0]["labels"] = nlohmann::json::array();
  EXPECT_NE(verify::least_squares_format_error(bad), "");
}

TEST(Diabetes, SameSeedGivesTheSameBytes) {
  for (const auto split : {DiabetesSplit::iid, DiabetesSplit::dirichlet}) {
    DiabetesOptions a;
    a.split = split;
    DiabetesOptions b = a;
    b.seed = 2;
    const std::string once = theory::diabetes_least_squares_json(a).dump();
    EXPECT_EQ(once, theory::diabetes_least_squares_json(a).dump());
    EXPECT_NE(once, theory::diabetes_least_squares_json(b).dump());
  }
  // The covariate-shift split draws nothing: only the recorded seed differs.
  DiabetesOptions a;
  a.split = DiabetesSplit::covariate_shift;
  DiabetesOptions b = a;
  b.seed = 2;
  EXPECT_EQ(theory::diabetes_least_squares_json(a)["clients"],
            theory::diabetes_least_squares_json(b)["clients"]);
}

TEST(Diabetes, DirichletSkewsTheTargetBinsAndIidDoesNot) {
  const theory::RegressionTable raw = theory::read_diabetes(DiabetesOptions{}.data_dir);
  const std::vector<int> bins = theory::target_bins(raw.targets, 5);
  // Equal-count bins: ⌊r·5/442⌋ gives sizes 88 or 89.
  for (int k = 0; k < 5; ++k) {
    const auto size = std::count(bins.begin(), bins.end(), k);
    EXPECT_TRUE(size == 88 || size == 89) << size;
  }
  DiabetesOptions iid;
  iid.split = DiabetesSplit::iid;
  DiabetesOptions skewed;
  skewed.alpha = 0.01;
  // iid: 44 rows per client, E TV ≈ ½ Σ_k sqrt(2 p_k(1 − p_k)/(π n_c)) ≈ 0.19 (p_k = 1/5); as α → 0
  // each client holds about one bin, TV → 1 − 1/5 = 0.8. Both seeds' values are far from 0.45.
  for (std::uint64_t seed : {1, 2}) {
    iid.seed = skewed.seed = seed;
    EXPECT_LT(bin_skew(theory::diabetes_assignment(raw, iid), bins, 5), 0.3);
    EXPECT_GT(bin_skew(theory::diabetes_assignment(raw, skewed), bins, 5), 0.6);
  }
}

TEST(Diabetes, CovariateShiftGivesContiguousQuantileBlocks) {
  const theory::RegressionTable raw = theory::read_diabetes(DiabetesOptions{}.data_dir);
  for (const char* feature : {"bmi", "age", "s5"}) {
    DiabetesOptions o;
    o.split = DiabetesSplit::covariate_shift;
    o.shift_feature = feature;
    o.clients = 6;
    const int column = static_cast<int>(
        std::find_if(theory::kDiabetesFeatures.begin(), theory::kDiabetesFeatures.end(),
                     [&](const char* n) { return std::string(n) == feature; }) -
        theory::kDiabetesFeatures.begin());
    const auto assignment = theory::diabetes_assignment(raw, o);
    double previous_max = -1e300;
    for (const auto& rows : assignment) {
      EXPECT_TRUE(rows.size() == 73 || rows.size() == 74) << rows.size();  // 442 / 6
      double lo = 1e300, hi = -1e300;
      for (const int r : rows) {
        lo = std::min(lo, raw.features(r, column));
        hi = std::max(hi, raw.features(r, column));
      }
      EXPECT_LE(previous_max, lo) << feature;  // blocks ordered by the feature's value
      previous_max = hi;
    }
  }
}

TEST(Diabetes, InvalidOptionsNameTheField) {
  const auto message = [](auto edit) {
    DiabetesOptions o;
    edit(o);
    return error_of([&] { theory::diabetes_least_squares_json(o); });
  };
  const auto names = [&](const std::string& m, const char* field) {
    return m.find(field) != std::string::npos;
  };
  EXPECT_TRUE(names(message([](DiabetesOptions& o) { o.clients = 0; }), "generator.clients"));
  EXPECT_TRUE(names(message([](DiabetesOptions& o) { o.clients = 443; }), "generator.clients"));
  EXPECT_TRUE(names(message([](DiabetesOptions& o) { o.alpha = 0; }), "generator.alpha"));
  EXPECT_TRUE(names(message([](DiabetesOptions& o) { o.bins = 0; }), "generator.bins"));
  EXPECT_TRUE(names(message([](DiabetesOptions& o) { o.shift_feature = "bp2"; }),
                    "generator.shift_feature"));
  EXPECT_TRUE(names(message([](DiabetesOptions& o) { o.l2 = -1; }), "generator.l2"));
  EXPECT_TRUE(names(message([](DiabetesOptions& o) { o.batch_size = 0; }), "generator.batch_size"));
  EXPECT_TRUE(names(message([](DiabetesOptions& o) { o.data_dir = "/nonexistent"; }),
                    "/nonexistent/diabetes_data_raw.csv.gz"));
  EXPECT_TRUE(
      names(error_of([] { theory::parse_diabetes_split("label-skew"); }), "generator.split"));
  EXPECT_EQ(theory::parse_diabetes_split("covariate-shift"), DiabetesSplit::covariate_shift);
}

TEST(Diabetes, PresetIsTheCatalogueProblem) {
  const nlohmann::json j = theory::diabetes_preset();
  EXPECT_EQ(verify::least_squares_format_error(j), "");
  EXPECT_EQ(j["clients"].size(), 10u);
  EXPECT_EQ(j["clients"][0]["features"][0].size(), 11u);
  EXPECT_EQ(j["generator"]["split"], "dirichlet");
  EXPECT_EQ(j.dump(),
            theory::diabetes_least_squares_json(theory::diabetes_preset_options()).dump());
}

// read_number_table: blank- or comma-separated, plain or gzip; malformed lines name file and line.
TEST(NumberTable, ReadsBlankAndCommaSeparatedTables) {
  const fs::path dir =
      fs::temp_directory_path() / ("fedverify_numtab_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const auto write = [&](const std::string& name, const std::string& text, bool gzip) {
    const std::string p = (dir / name).string();
    if (gzip) {
      gzFile f = gzopen(p.c_str(), "wb");
      gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
      gzclose(f);
    } else {
      std::ofstream(p) << text;
    }
    return p;
  };
  for (const bool gzip : {false, true}) {
    const Matrix m =
        theory::read_number_table(write("a", "1 2\t3\n\n4,5 , 6\r\n  7  8 9  \n", gzip));
    Matrix expected(3, 3);
    expected << 1, 2, 3, 4, 5, 6, 7, 8, 9;
    EXPECT_EQ(m, expected);
  }
  EXPECT_NE(error_of([&] {
              theory::read_number_table(write("b", "1 2\n3\n", false));
            }).find("line 2: 1 fields, the first line has 2"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              theory::read_number_table(write("c", "1 x\n", false));
            }).find("line 1, field 2"),
            std::string::npos);
  EXPECT_NE(
      error_of([&] { theory::read_number_table(write("d", "1,2,\n", false)); }).find("empty field"),
      std::string::npos);
  EXPECT_NE(
      error_of([&] { theory::read_number_table(write("e", "\n\n", false)); }).find("no data line"),
      std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace fedverify
