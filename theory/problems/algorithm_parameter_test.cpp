// An algorithm's own parameters (algorithm_parameter.hpp) through the registry and the resolver
// (algorithm_registry.hpp, algorithm_preset.hpp), on a toy algorithm registered here with a
// per-client integer parameter and a scalar one with a default — the problems layer alone, so
// this is the machinery, not FedNova (theory/algorithms/fednova_test.cpp, the CLI's
// verify/cli/parameter_contract.sh).
#include "theory/problems/algorithm_parameter.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "theory/base/input_error.hpp"
#include "theory/problems/algorithm_preset.hpp"
#include "theory/problems/algorithm_registry.hpp"

namespace fedverify::theory {
namespace {

constexpr Algorithm kToy{"toy-parameters"};

const AlgorithmParameter kPerClient{.key = "toy_steps",
                                    .meaning = "steps",
                                    .min = 1,
                                    .max = 100,
                                    .integer = true,
                                    .per_client = true,
                                    .required = true};
const AlgorithmParameter kScalar{
    .key = "toy_rate", .meaning = "rate", .min = 0, .max = 1, .default_value = {0.5}};

[[maybe_unused]] const bool registered =
    register_algorithm({.algorithm = kToy, .summary = "toy", .parameters = {kPerClient, kScalar}});

ResolvedAlgorithm resolve(const PresetValues& values) {
  return resolve_algorithm(kToy.name(), RunSetting{0.1, 1}, values, false, false,
                           command_line_fields());
}

std::string error_of(const PresetValues& values) {
  try {
    resolve(values);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(AlgorithmParameters, ResolvedValuesAndDefaultsLandInTheSetting) {
  const ResolvedAlgorithm r = resolve({{"toy_steps", {1, 2, 3}}});
  EXPECT_EQ(r.algorithm, kToy);
  EXPECT_EQ(r.step.parameters.at("toy_steps"), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(r.step.parameters.at("toy_rate"), (std::vector<double>{0.5}));
  EXPECT_EQ(per_client_values(r.step, "toy_steps", 3), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(parameter_value(r.step, "toy_rate"), 0.5);
  EXPECT_NO_THROW(validate(kToy, r.step));
  // One value stands for every client.
  const ResolvedAlgorithm one = resolve({{"toy_steps", {4}}, {"toy_rate", {0.25}}});
  EXPECT_EQ(per_client_values(one.step, "toy_steps", 3), (std::vector<double>{4, 4, 4}));
  EXPECT_EQ(parameter_value(one.step, "toy_rate"), 0.25);
}

TEST(AlgorithmParameters, BadValuesNameTheField) {
  EXPECT_EQ(error_of({}), "--toy-steps: required by --algo toy-parameters");
  EXPECT_EQ(error_of({{"toy_steps", {1, 2.5}}}).rfind("--toy-steps: expected an integer", 0), 0u);
  EXPECT_NE(error_of({{"toy_steps", {1, 2.5}}}).find("got 2.5 (value 2)"), std::string::npos);
  EXPECT_EQ(
      error_of({{"toy_steps", {101}}}).rfind("--toy-steps: expected an integer in [1, 100]", 0),
      0u);
  EXPECT_EQ(error_of({{"toy_steps", {1}}, {"toy_rate", {0.1, 0.2}}}),
            "--toy-rate: expected one number, got a list of 2");
  EXPECT_EQ(error_of({{"toy_steps", {1}}, {"toy_rate", {2}}}).rfind("--toy-rate: expected", 0), 0u);
  // A key no algorithm or preset of this executable declares (the presets are registered in the
  // theory layer, which this test does not link).
  EXPECT_EQ(
      error_of({{"toy_steps", {1}}, {"mu", {0.1}}}).rfind("--mu: not a parameter (expected ", 0),
      0u);
  // A per-client list of the wrong length is found when N is known.
  const ResolvedAlgorithm r = resolve({{"toy_steps", {1, 2}}});
  try {
    per_client_values(r.step, "toy_steps", 3);
    FAIL() << "2 values for 3 clients accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "--toy-steps: expected one value per client (3) or one for all, got 2");
  }
  // validate() checks a setting built in C++ as resolve_algorithm would.
  RunSetting built{0.1, 1};
  EXPECT_THROW(validate(kToy, built), InputError);  // toy_steps missing
  built.parameters = {{"toy_steps", {1}}, {"toy_rate", {0.5}}, {"other", {1}}};
  EXPECT_THROW(validate(kToy, built), InputError);  // a key the algorithm does not declare
}

TEST(AlgorithmParameters, KeysFlagsAndHelpComeFromTheDeclaration) {
  const std::vector<std::string_view> keys = parameter_keys();
  EXPECT_TRUE(std::is_sorted(keys.begin(), keys.end()));
  EXPECT_NE(std::find(keys.begin(), keys.end(), "toy_steps"), keys.end());
  EXPECT_EQ(parameter_flag("toy_steps"), "--toy-steps");
  EXPECT_TRUE(parameter_is_list("toy_steps"));
  EXPECT_FALSE(parameter_is_list("toy_rate"));
  const std::string help = parameter_help("toy_steps");
  EXPECT_NE(help.find("an integer in [1, 100] per client"), std::string::npos) << help;
  EXPECT_NE(help.find("only --algo toy-parameters"), std::string::npos) << help;
}

TEST(AlgorithmParameters, RegistrationRefusesADuplicateKeyOrABadDefault) {
  EXPECT_THROW(register_algorithm(
                   {.algorithm = Algorithm{"toy-duplicate"}, .parameters = {kScalar, kScalar}}),
               std::logic_error);
  AlgorithmParameter bad = kScalar;
  bad.default_value = {2};  // outside [0, 1]
  EXPECT_THROW(register_algorithm({.algorithm = Algorithm{"toy-bad-default"}, .parameters = {bad}}),
               std::logic_error);
}

// An open bound excludes the bound itself (L2GD's λ > 0, p in (0, 1)); a parameter neither
// required nor defaulted is absent unless given, and the run computes its own default.
constexpr Algorithm kToyOpen{"toy-open-bounds"};
const AlgorithmParameter kPositive{
    .key = "toy_strength", .meaning = "strength", .min = 0, .open_min = true, .required = true};
const AlgorithmParameter kProbability{.key = "toy_probability",
                                      .meaning = "probability",
                                      .min = 0,
                                      .max = 1,
                                      .open_min = true,
                                      .open_max = true};
[[maybe_unused]] const bool registered_open = register_algorithm(
    {.algorithm = kToyOpen, .summary = "toy", .parameters = {kPositive, kProbability}});

TEST(AlgorithmParameters, OpenBoundsExcludeTheBoundAndAnOptionalParameterStaysAbsent) {
  EXPECT_EQ(parameter_range(kPositive), "a number > 0");
  EXPECT_EQ(parameter_range(kProbability), "a number in (0, 1)");
  EXPECT_THROW(check_parameter_values(kPositive, {0.0}, "--toy-strength"), InputError);
  EXPECT_NO_THROW(check_parameter_values(kPositive, {1e-300}, "--toy-strength"));
  for (const double p : {0.0, 1.0}) {
    EXPECT_THROW(check_parameter_values(kProbability, {p}, "--toy-probability"), InputError) << p;
  }
  EXPECT_NO_THROW(check_parameter_values(kProbability, {0.5}, "--toy-probability"));
  const auto resolve_open = [](const PresetValues& values) {
    return resolve_algorithm(kToyOpen.name(), RunSetting{0.1, 1}, values, false, false,
                             command_line_fields());
  };
  const ResolvedAlgorithm absent = resolve_open({{"toy_strength", {2}}});
  EXPECT_FALSE(absent.step.parameters.contains("toy_probability"));
  EXPECT_EQ(optional_parameter_value(absent.step, "toy_probability"), std::nullopt);
  EXPECT_NO_THROW(validate(kToyOpen, absent.step));
  const ResolvedAlgorithm given = resolve_open({{"toy_strength", {2}}, {"toy_probability", {0.3}}});
  EXPECT_EQ(optional_parameter_value(given.step, "toy_probability"), 0.3);
  // Required stays required: an empty default does not make it optional.
  try {
    resolve_open({});
    FAIL() << "toy_strength left out";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "--toy-strength: required by --algo toy-open-bounds");
  }
}

}  // namespace
}  // namespace fedverify::theory
