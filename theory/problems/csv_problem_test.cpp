// The CSV importer (csv_problem.hpp): the problem it writes parses (parse_problem) with the rows of
// the table, labels and standardisation as documented; the splits do what they say (iid sizes
// differ by at most one and use every row once; Dirichlet label proportions spread across
// clients for small α and are near-equal for huge α; by-column gives one client per value,
// holding exactly that value's rows); same seed ⇒ the same bytes; bad tables and options are
// refused naming the option, or the line and column of the cell.
//
// Every table is written here from a rule the test knows (row r's id is r), so the checks recover
// each client's rows from the "id" feature column rather than from the code under test.
#include "theory/problems/csv_problem.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <unistd.h>

#include "theory/base/input_error.hpp"
#include "theory/problems/problem_io.hpp"

namespace fedverify::theory {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class CsvProblemTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           fmt::format("csv_problem_test_{}_{}", ::getpid(),
                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) const {
    std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }

  // n rows: id = r, x = a deterministic non-constant value, label "yes" for every other row
  // (so the classes are balanced), site = r mod 3 written as "s10", "s9", "s2".
  std::string table(int n) const {
    std::string text = "id,x,site,label,target\n";
    for (int r = 0; r < n; ++r) {
      text += fmt::format("{},{},{},{},{}\n", r, std::sin(1.0 + r), r % 3 == 0 ? "s10" : "s9",
                          r % 2 == 0 ? "yes" : "no", 0.5 * r - 3.0 + std::cos(r));
    }
    return write("t.csv", text);
  }

  fs::path dir_;
};

// Options reading the ids back: no standardisation, no intercept, the site column left out.
CsvProblemOptions raw_options(const std::string& kind = "logistic") {
  CsvProblemOptions o;
  o.kind = kind;
  o.label = kind == "logistic" ? "label" : "target";
  o.features = {"id", "x"};
  o.standardise = false;
  o.intercept = false;
  o.clients = 4;
  o.seed = 7;
  return o;
}

// Each client's ids (the first feature column).
std::vector<std::vector<int>> client_ids(const json& problem) {
  std::vector<std::vector<int>> out;
  for (const json& c : problem["clients"]) {
    out.emplace_back();
    for (const json& row : c["features"]) out.back().push_back(row[0].get<int>());
  }
  return out;
}

// The message of the InputError `f` throws ("" when none).
template <typename F>
std::string error_of(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_ERROR(call, text)                                                          \
  do {                                                                                    \
    const std::string message = error_of([&] { call; });                                  \
    EXPECT_NE(message.find(text), std::string::npos) << "message: \"" << message << "\""; \
  } while (false)

TEST_F(CsvProblemTest, IidSplitUsesEveryRowOnceWithSizesWithinOne) {
  const std::string path = table(103);
  const json p = csv_problem_json(path, raw_options());
  const auto ids = client_ids(p);
  ASSERT_EQ(ids.size(), 4u);
  std::multiset<int> all;
  std::size_t smallest = 1000, largest = 0;
  for (const auto& c : ids) {
    all.insert(c.begin(), c.end());
    smallest = std::min(smallest, c.size());
    largest = std::max(largest, c.size());
  }
  EXPECT_LE(largest - smallest, 1u);
  EXPECT_EQ(all.size(), 103u);
  EXPECT_EQ(std::set<int>(all.begin(), all.end()).size(), 103u);
  // Labels: "no" < "yes" as text, so "yes" (even ids) ↦ +1.
  for (std::size_t c = 0; c < ids.size(); ++c) {
    for (std::size_t j = 0; j < ids[c].size(); ++j) {
      EXPECT_EQ(p["clients"][c]["labels"][j].get<int>(), ids[c][j] % 2 == 0 ? 1 : -1);
    }
  }
  EXPECT_EQ(p["generator"]["class_names"], json::array({"no", "yes"}));
  // A shuffle: client 0 is not simply the first quarter of the rows.
  EXPECT_NE(ids[0], std::vector<int>({0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12,
                                      13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25}));
  EXPECT_NO_THROW(parse_problem(p, "p"));
}

TEST_F(CsvProblemTest, SameSeedSameBytesOtherSeedOtherSplit) {
  const std::string path = table(60);
  CsvProblemOptions o = raw_options();
  EXPECT_EQ(csv_problem_json(path, o).dump(), csv_problem_json(path, o).dump());
  const auto ids = client_ids(csv_problem_json(path, o));
  o.seed = 8;
  EXPECT_NE(client_ids(csv_problem_json(path, o)), ids);
  o.split = "dirichlet";
  EXPECT_EQ(csv_problem_json(path, o).dump(), csv_problem_json(path, o).dump());
}

TEST_F(CsvProblemTest, StandardisedFeaturesAndIntercept) {
  const std::string path = table(50);
  CsvProblemOptions o = raw_options();
  o.standardise = true;
  o.intercept = true;
  const json p = csv_problem_json(path, o);
  // Pooled over the clients: every feature has mean 0 and population variance 1; the last
  // column is all ones.
  double sum[2] = {0, 0}, squares[2] = {0, 0};
  int n = 0;
  for (const json& c : p["clients"]) {
    for (const json& row : c["features"]) {
      ASSERT_EQ(row.size(), 3u);
      EXPECT_EQ(row[2].get<double>(), 1.0);
      for (int j = 0; j < 2; ++j) {
        sum[j] += row[j].get<double>();
        squares[j] += std::pow(row[j].get<double>(), 2);
      }
      ++n;
    }
  }
  EXPECT_EQ(n, 50);
  for (int j = 0; j < 2; ++j) {
    EXPECT_NEAR(sum[j] / n, 0.0, 1e-12);
    EXPECT_NEAR(squares[j] / n, 1.0, 1e-12);
  }
  // The recorded mean of id is that of 0 … 49.
  EXPECT_DOUBLE_EQ(p["generator"]["feature_mean"][0].get<double>(), 24.5);
  EXPECT_EQ(p["generator"]["features"], json::array({"id", "x", "intercept"}));
}

// The positive-label fraction of each client.
std::vector<double> positive_fractions(const json& problem) {
  std::vector<double> out;
  for (const json& c : problem["clients"]) {
    double positives = 0;
    for (const json& y : c["labels"]) positives += y.get<int>() == 1 ? 1 : 0;
    out.push_back(positives / static_cast<double>(c["labels"].size()));
  }
  return out;
}

TEST_F(CsvProblemTest, DirichletSpreadsLabelsForSmallAlphaNotForHugeAlpha) {
  const std::string path = table(400);
  CsvProblemOptions o = raw_options();
  o.split = "dirichlet";
  o.clients = 5;
  o.alpha = 0.05;
  const auto skewed = positive_fractions(csv_problem_json(path, o));
  // α = 0.05: each class goes almost entirely to one or two clients, so some client is nearly
  // all one class and another nearly all the other (pooled fraction ½).
  EXPECT_GT(*std::max_element(skewed.begin(), skewed.end()) -
                *std::min_element(skewed.begin(), skewed.end()),
            0.5);
  o.alpha = 1e6;
  const json even = csv_problem_json(path, o);
  for (const double f : positive_fractions(even)) EXPECT_NEAR(f, 0.5, 0.05);
  // Every row once.
  std::set<int> all;
  for (const auto& c : client_ids(even)) all.insert(c.begin(), c.end());
  EXPECT_EQ(all.size(), 400u);
}

TEST_F(CsvProblemTest, LeastSquaresDirichletBinsAndTargets) {
  const std::string path = table(120);
  CsvProblemOptions o = raw_options("least-squares");
  o.split = "dirichlet";
  o.clients = 3;
  o.alpha = 0.1;
  o.l2 = 0.5;
  const json p = csv_problem_json(path, o);
  EXPECT_EQ(p["kind"], "least-squares");
  const auto ids = client_ids(p);
  for (std::size_t c = 0; c < ids.size(); ++c) {
    for (std::size_t j = 0; j < ids[c].size(); ++j) {
      const int r = ids[c][j];
      EXPECT_DOUBLE_EQ(p["clients"][c]["targets"][j].get<double>(), 0.5 * r - 3.0 + std::cos(r));
    }
  }
  EXPECT_NO_THROW(parse_problem(p, "p"));
}

TEST_F(CsvProblemTest, ByColumnOneClientPerValueInNumericOrder) {
  const std::string path = write("s.csv", "a,site,y\n1,10,0\n2,9,1\n3,2,0\n4,10,1\n5,2,1\n6,9,0\n");
  CsvProblemOptions o;
  o.label = "y";
  o.split = "by-column";
  o.client_column = "site";
  o.standardise = false;
  o.intercept = false;
  const json p = csv_problem_json(path, o);
  EXPECT_EQ(p["generator"]["client_values"], json::array({"2", "9", "10"}));
  EXPECT_EQ(client_ids(p), (std::vector<std::vector<int>>{{3, 5}, {2, 6}, {1, 4}}));
  // {0, 1} ↦ {−1, +1}; the site column is not a feature.
  EXPECT_EQ(p["clients"][0]["labels"], json::array({-1, 1}));
  EXPECT_EQ(p["clients"][0]["features"][0].size(), 1u);
  o.clients = 2;
  EXPECT_ERROR(csv_problem_json(path, o), "holds 3 distinct values");
}

// What spreadsheets write: a byte-order mark, CRLF line ends, quoted fields, blank lines.
TEST_F(CsvProblemTest, SpreadsheetExport) {
  const std::string path =
      write("x.csv", "\xEF\xBB\xBF\"a\",\"the label\"\r\n1.5,\"no\"\r\n\r\n-2e1,yes\r\n");
  CsvProblemOptions o;
  o.label = "the label";
  o.clients = 1;
  o.standardise = false;
  const json p = csv_problem_json(path, o);
  EXPECT_EQ(p["clients"][0]["features"], json::parse("[[1.5, 1.0], [-20.0, 1.0]]"));
  EXPECT_EQ(p["clients"][0]["labels"], json::array({-1, 1}));
  o.features = {"a"};  // the first column's name, without the mark
  EXPECT_NO_THROW(csv_problem_json(path, o));
}

TEST_F(CsvProblemTest, TextValuesSortAsText) {
  std::vector<std::string> values;
  const auto rows = by_value_assignment({"b", "a", "b", "10", "c"}, &values);
  EXPECT_EQ(values, (std::vector<std::string>{"10", "a", "b", "c"}));
  EXPECT_EQ(rows, (std::vector<std::vector<int>>{{3}, {1}, {0, 2}, {4}}));
}

TEST_F(CsvProblemTest, BadTablesNameTheLineAndColumn) {
  CsvProblemOptions o;
  o.label = "y";
  o.clients = 2;
  EXPECT_ERROR(csv_problem_json(write("e.csv", ""), o), "e.csv: the file holds no rows");
  EXPECT_ERROR(csv_problem_json(write("h.csv", "a,y\n"), o), "no data rows after the header");
  EXPECT_ERROR(csv_problem_json(write("r.csv", "a,y\n1,0\n2,1,5\n"), o),
               "r.csv: line 3: 3 fields, the header (line 1) has 2");
  EXPECT_ERROR(csv_problem_json(write("n.csv", "a,b,y\n1,2,0\n3,abc,1\n"), o),
               "n.csv: line 3, column 2 (b): \"abc\" is not a number");
  EXPECT_ERROR(csv_problem_json(write("nan.csv", "a,y\n1,0\nNaN,1\n"), o),
               "line 3, column 1 (a): \"NaN\" is not a finite number");
  EXPECT_ERROR(csv_problem_json(write("inf.csv", "a,y\n-inf,0\n2,1\n"), o),
               "line 2, column 1 (a): \"-inf\" is not a finite number");
  EXPECT_ERROR(csv_problem_json(write("m.csv", "a,y\n,0\n2,1\n"), o),
               "line 2, column 1 (a): empty");
  EXPECT_ERROR(csv_problem_json(write("l.csv", "a,z\n1,0\n2,1\n"), o),
               "label: no column named \"y\"");
  EXPECT_ERROR(csv_problem_json(write("d.csv", "a,a,y\n1,1,0\n2,2,1\n"), o),
               "line 1, column 2: column name \"a\" repeats column 1");
  EXPECT_ERROR(csv_problem_json(write("c.csv", "a,b,y\n1,5,0\n2,5,1\n"), o), "column 2 (b) of");
  EXPECT_ERROR(csv_problem_json(write("three.csv", "a,y\n1,cat\n2,dog\n3,cow\n"), o),
               "holds 3 distinct values (\"cat\", \"dog\", \"cow\")");
  EXPECT_ERROR(csv_problem_json(write("one.csv", "a,y\n1,cat\n2,cat\n"), o),
               "holds 1 distinct value (\"cat\")");
  o.features = {"a", "q"};
  EXPECT_ERROR(csv_problem_json(write("f.csv", "a,y\n1,0\n2,1\n"), o),
               "features: no column named \"q\"");
}

TEST_F(CsvProblemTest, AClientWithoutRowsIsNamed) {
  const std::string path = table(5);
  CsvProblemOptions o = raw_options();
  o.clients = 8;
  EXPECT_ERROR(csv_problem_json(path, o), "clients: client 5 would receive no rows");
  EXPECT_ERROR(csv_problem_json(path, o), "use at most 5 clients");
  o.split = "dirichlet";
  EXPECT_ERROR(csv_problem_json(path, o), "use at most 5 clients");
}

TEST_F(CsvProblemTest, BadOptionsNameTheOption) {
  const std::string path = table(10);
  CsvProblemOptions o = raw_options();
  o.kind = "poisson";
  EXPECT_ERROR(csv_problem_json(path, o), "kind: expected");
  o = raw_options();
  o.split = "random";
  EXPECT_ERROR(csv_problem_json(path, o), "split: expected");
  o = raw_options();
  o.split = "dirichlet";
  o.alpha = 0;
  EXPECT_ERROR(csv_problem_json(path, o), "alpha: must be finite and > 0");
  o = raw_options();
  o.clients = 0;
  EXPECT_ERROR(csv_problem_json(path, o), "clients: required");
  o.clients = -2;
  EXPECT_ERROR(csv_problem_json(path, o), "clients: must be >= 1, got -2");
  o = raw_options();
  o.split = "by-column";
  EXPECT_ERROR(csv_problem_json(path, o), "client_column: required");
  o = raw_options();
  o.client_column = "site";
  EXPECT_ERROR(csv_problem_json(path, o), "client_column: read by split by-column only");
  o = raw_options();
  o.positive_label = "maybe";
  EXPECT_ERROR(csv_problem_json(path, o), "positive_label: \"maybe\" is not a value");
  o = raw_options();
  o.features = {"id", "label"};
  EXPECT_ERROR(csv_problem_json(path, o), "features: \"label\" is the label column");
}

TEST_F(CsvProblemTest, PositiveLabelChoosesTheSign) {
  const std::string path = table(20);
  CsvProblemOptions o = raw_options();
  o.positive_label = "no";
  const json p = csv_problem_json(path, o);
  const auto ids = client_ids(p);
  for (std::size_t c = 0; c < ids.size(); ++c) {
    for (std::size_t j = 0; j < ids[c].size(); ++j) {
      EXPECT_EQ(p["clients"][c]["labels"][j].get<int>(), ids[c][j] % 2 == 0 ? -1 : 1);
    }
  }
}

}  // namespace
}  // namespace fedverify::theory
