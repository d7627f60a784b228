// The typed setting and measured fields of results.json (reports/report/typed_fields.hpp).
#include "reports/report/typed_fields.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace fedverify::reports {
namespace {

TEST(SettingFields, LabelsNumbersAndStrings) {
  const SettingFields f = setting_fields("q-small, fedavg, H = 5, γ = 0.02, mean");
  EXPECT_EQ(f.labels, nlohmann::json({"q-small", "fedavg", "mean"}));
  EXPECT_EQ(f.values["H"], 5);
  EXPECT_DOUBLE_EQ(f.values["γ"].get<double>(), 0.02);
}

TEST(SettingFields, CommasInsideBracketsStayInTheirPart) {
  const SettingFields f =
      setting_fields("training: L2GD+, λ ∈ {0.1, 1}·L, p = 0.0909, α = 1/(4L, x), x0 = [1, −2]");
  EXPECT_EQ(f.labels, nlohmann::json({"training: L2GD+", "λ ∈ {0.1, 1}·L"}));
  EXPECT_DOUBLE_EQ(f.values["p"].get<double>(), 0.0909);
  EXPECT_EQ(f.values["α"], "1/(4L, x)");  // not one number: kept as text
  EXPECT_EQ(f.values["x0"], "[1, −2]");
}

TEST(SettingFields, UnicodeMinusExponentsAndPercent) {
  const SettingFields f = setting_fields("a = −0.5, b = 1e-3, c = 25 %, d = 3 rounds");
  EXPECT_DOUBLE_EQ(f.values["a"].get<double>(), -0.5);
  EXPECT_DOUBLE_EQ(f.values["b"].get<double>(), 1e-3);
  EXPECT_DOUBLE_EQ(f.values["c"].get<double>(), 0.25);
  EXPECT_EQ(f.values["d"], "3 rounds");
}

TEST(SettingFields, EmptyAndPlainText) {
  EXPECT_TRUE(setting_fields("").labels.empty());
  EXPECT_TRUE(setting_fields("").values.empty());
  EXPECT_EQ(setting_fields("everything at once").labels, nlohmann::json({"everything at once"}));
}

TEST(MeasuredValues, EveryGateWithNullForNonFinite) {
  claims::Row row;
  row.gates.push_back({"slope", 2.01, 0.05});
  row.gates.push_back({"ratio", std::numeric_limits<double>::infinity(), 0.0});
  const nlohmann::json m = measured_values(row);
  EXPECT_DOUBLE_EQ(m["slope"]["value"].get<double>(), 2.01);
  EXPECT_DOUBLE_EQ(m["slope"]["tolerance"].get<double>(), 0.05);
  EXPECT_TRUE(m["ratio"]["value"].is_null());
}

}  // namespace
}  // namespace fedverify::reports
