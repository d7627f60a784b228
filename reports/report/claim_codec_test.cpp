// A claim's result survives the trip between ranks (claim_codec.hpp) bit for bit: every field,
// and the doubles that JSON text cannot carry (NaN of either sign, ±∞, −0, subnormals).
#include "reports/report/claim_codec.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <exception>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "theory/base/input_error.hpp"

namespace fedverify::reports {
namespace {

using claims::ClaimResult;

constexpr double kInf = std::numeric_limits<double>::infinity();

// Bits of a double: two doubles are "the same" here only when their bits are.
std::uint64_t bits(double x) { return std::bit_cast<std::uint64_t>(x); }

// −NaN as x86 arithmetic produces it (0/0 sets the sign bit), and quiet_NaN's +NaN.
double negative_nan() { return -std::numeric_limits<double>::quiet_NaN(); }

std::vector<double> awkward_doubles() {
  return {0.1,
          -0.0,
          1e-310,  // subnormal
          std::numeric_limits<double>::max(),
          0.5,  // exactly a float: MessagePack may write it in 4 bytes
          kInf,
          -kInf,
          std::numeric_limits<double>::quiet_NaN(),
          negative_nan(),
          1.0 / 3.0};
}

void expect_same_bits(const std::vector<double>& a, const std::vector<double>& b,
                      const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(bits(a[i]), bits(b[i])) << what << "[" << i << "]";
  }
}

ClaimResult example() {
  ClaimResult r;
  claims::Row row;
  row.setting = "q-hetero, H = 5 | \"quoted\" ✓";
  row.predicted = "slope ≥ 1.5";
  row.measured = "2.003 [1.998, 2.008]";
  row.passed = true;
  row.data = {{"slope", 2.003}, {"p", negative_nan()}, {"n", 42}, {"k", -7}, {"v", {1, 2.5}}};
  row.gates = {{"slope", 2.003, 0.01}, {"mean[1]", -0.0, kInf}};
  row.equivalence.margin = 0.05;
  row.equivalence.margin_text = "±5 %";
  row.equivalence.confirmed = true;
  row.equivalence.mde = kInf;
  row.equivalence.tests = {"TOST lower: p = 0.001", "TOST upper: p = 0.002"};
  row.first_attempt = {{"measured", "1.9"}, {"data", {{"x", 1e-310}}}};
  r.rows.push_back(row);
  claims::Row deterministic;  // NaN margin and MDE, null first attempt
  deterministic.setting = "exact";
  deterministic.passed = false;
  r.rows.push_back(deterministic);
  claims::Figure f;
  f.file = "map.svg";
  f.caption = "A map";
  f.plot.title = "t";
  f.plot.xlabel = "γL";
  f.plot.ylabel = "H";
  f.plot.log_x = true;
  f.plot.equal_axes = true;
  f.plot.series.emplace_back("boundary", awkward_doubles(), awkward_doubles(), "points",
                             std::vector<double>{0.25, negative_nan()});
  f.plot.heatmap.x = {1, 2};
  f.plot.heatmap.y = {3};
  f.plot.heatmap.z = {std::numeric_limits<double>::quiet_NaN(), 0.7};
  f.plot.heatmap.zlabel = "class";
  f.plot.heatmap.log_z = true;
  f.plot.heatmap.classes = {"contracts", "diverges"};
  r.figures.push_back(f);
  r.figures.push_back({"empty.svg", "", {}});
  r.note = "note";
  r.breaks_at = "γHL ≈ 3.1";
  r.seconds = 1.25;
  return r;
}

TEST(ClaimCodec, RoundTripKeepsEveryFieldBitForBit) {
  const ClaimResult a = example();
  const ClaimResult b = claim_result_from_json(from_bytes(to_bytes(claim_result_to_json(a))));
  ASSERT_EQ(b.rows.size(), a.rows.size());
  for (std::size_t i = 0; i < a.rows.size(); ++i) {
    const claims::Row& x = a.rows[i];
    const claims::Row& y = b.rows[i];
    EXPECT_EQ(y.setting, x.setting);
    EXPECT_EQ(y.predicted, x.predicted);
    EXPECT_EQ(y.measured, x.measured);
    EXPECT_EQ(y.passed, x.passed);
    // Dumped text compares numbers and structure (NaN dumps as null: its bits are checked below).
    EXPECT_EQ(y.data.dump(), x.data.dump());
    EXPECT_EQ(y.first_attempt.dump(), x.first_attempt.dump());
    ASSERT_EQ(y.gates.size(), x.gates.size());
    for (std::size_t g = 0; g < x.gates.size(); ++g) {
      EXPECT_EQ(y.gates[g].name, x.gates[g].name);
      EXPECT_EQ(bits(y.gates[g].value), bits(x.gates[g].value));
      EXPECT_EQ(bits(y.gates[g].tolerance), bits(x.gates[g].tolerance));
    }
    EXPECT_EQ(bits(y.equivalence.margin), bits(x.equivalence.margin));
    EXPECT_EQ(y.equivalence.margin_text, x.equivalence.margin_text);
    EXPECT_EQ(y.equivalence.confirmed, x.equivalence.confirmed);
    EXPECT_EQ(bits(y.equivalence.mde), bits(x.equivalence.mde));
    EXPECT_EQ(y.equivalence.tests, x.equivalence.tests);
  }
  EXPECT_EQ(bits(b.rows[0].data["p"].get<double>()), bits(negative_nan()));
  EXPECT_EQ(bits(b.rows[0].first_attempt["data"]["x"].get<double>()), bits(1e-310));
  EXPECT_TRUE(b.rows[1].first_attempt.is_null());
  ASSERT_EQ(b.figures.size(), a.figures.size());
  for (std::size_t i = 0; i < a.figures.size(); ++i) {
    const claims::Figure& x = a.figures[i];
    const claims::Figure& y = b.figures[i];
    EXPECT_EQ(y.file, x.file);
    EXPECT_EQ(y.caption, x.caption);
    EXPECT_EQ(y.plot.title, x.plot.title);
    EXPECT_EQ(y.plot.xlabel, x.plot.xlabel);
    EXPECT_EQ(y.plot.ylabel, x.plot.ylabel);
    EXPECT_EQ(y.plot.log_x, x.plot.log_x);
    EXPECT_EQ(y.plot.log_y, x.plot.log_y);
    EXPECT_EQ(y.plot.equal_axes, x.plot.equal_axes);
    ASSERT_EQ(y.plot.series.size(), x.plot.series.size());
    for (std::size_t s = 0; s < x.plot.series.size(); ++s) {
      EXPECT_EQ(y.plot.series[s].title, x.plot.series[s].title);
      EXPECT_EQ(y.plot.series[s].style, x.plot.series[s].style);
      expect_same_bits(y.plot.series[s].x, x.plot.series[s].x, "series x");
      expect_same_bits(y.plot.series[s].y, x.plot.series[s].y, "series y");
      expect_same_bits(y.plot.series[s].err, x.plot.series[s].err, "series err");
    }
    expect_same_bits(y.plot.heatmap.x, x.plot.heatmap.x, "heatmap x");
    expect_same_bits(y.plot.heatmap.y, x.plot.heatmap.y, "heatmap y");
    expect_same_bits(y.plot.heatmap.z, x.plot.heatmap.z, "heatmap z");
    EXPECT_EQ(y.plot.heatmap.zlabel, x.plot.heatmap.zlabel);
    EXPECT_EQ(y.plot.heatmap.log_z, x.plot.heatmap.log_z);
    EXPECT_EQ(y.plot.heatmap.classes, x.plot.heatmap.classes);
  }
  EXPECT_EQ(b.note, a.note);
  EXPECT_EQ(b.breaks_at, a.breaks_at);
  EXPECT_EQ(bits(b.seconds), bits(a.seconds));
}

TEST(ClaimCodec, NegativeNanKeepsItsSign) {
  // The reason for MessagePack: JSON text has no NaN, and nlohmann's CBOR writes every NaN as
  // the canonical +NaN, so fmt would print "nan" where a single process printed "-nan".
  const nlohmann::json j = negative_nan();
  EXPECT_TRUE(std::signbit(from_bytes(to_bytes(j)).get<double>()));
}

TEST(ClaimCodec, RefusesWhatItDidNotWrite) {
  EXPECT_THROW(claim_result_from_json(nlohmann::json::object()), nlohmann::json::exception);
  nlohmann::json j = claim_result_to_json(example());
  j["rows"][0].erase("gates");
  EXPECT_THROW(claim_result_from_json(j), nlohmann::json::exception);
  EXPECT_THROW(from_bytes(std::string("\xc1", 1)), nlohmann::json::exception);
}

// Errors cross ranks with their exit code (bad input 2, anything else 3) and message.
TEST(RankErrors, ExitCodesAndMessagesSurviveTheTrip) {
  const auto input = std::make_exception_ptr(InputError("--only: matches no claim"));
  const auto internal = std::make_exception_ptr(std::runtime_error("singular matrix"));
  EXPECT_EQ(exit_code_of(input), 2);
  EXPECT_EQ(exit_code_of(internal), 3);
  EXPECT_EQ(exit_code_of(error_from_json(error_to_json(input), 3)), 2);
  try {
    std::rethrow_exception(error_from_json(error_to_json(internal), 3));
  } catch (const std::exception& e) {
    EXPECT_STREQ(e.what(), "rank 3: singular matrix");
  }
}

}  // namespace
}  // namespace fedverify::reports
