// Problem files (theory/problems/problem_io.hpp): the JSON round trip is exact, bad inputs and
// unknown fields are input errors naming the field, and the strict JSON reader agrees with
// nlohmann::json on valid text while naming overflows and duplicate keys.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "theory/base/input_error.hpp"
#include "theory/problems/generators.hpp"
#include "theory/problems/logistic_problem.hpp"
#include "theory/problems/problem_io.hpp"
#include "theory/problems/quadratic_problem.hpp"
#include "theory/problems/testing/small_problems.hpp"

namespace fedverify {
namespace {

using theory::QuadraticProblem;
using verify::small_logistic;
using verify::small_options;

TEST(ProblemJson, RoundTripIsExact) {
  const QuadraticProblem q = theory::generate_quadratic(small_options(61));
  const std::string text = theory::problem_to_json(q).dump();
  const auto back = theory::parse_problem(nlohmann::json::parse(text), "roundtrip");
  EXPECT_EQ(theory::problem_to_json(*back).dump(), text);
  const auto& qb = dynamic_cast<const QuadraticProblem&>(*back);
  for (int c = 0; c < q.num_clients(); ++c) {
    EXPECT_EQ(qb.client(c).hessian, q.client(c).hessian);
    EXPECT_EQ(qb.client(c).optimum, q.client(c).optimum);
    EXPECT_EQ(qb.client(c).noise_cov, q.client(c).noise_cov);
  }
  const theory::LogisticProblem l = small_logistic(2);
  const std::string ltext = theory::problem_to_json(l).dump();
  const auto lback = theory::parse_problem(nlohmann::json::parse(ltext), "roundtrip");
  EXPECT_EQ(theory::problem_to_json(*lback).dump(), ltext);
}

void expect_input_error_naming(const std::string& json_text, const std::string& field) {
  try {
    (void)theory::parse_problem(nlohmann::json::parse(json_text), "bad.json");
    ADD_FAILURE() << "no InputError for " << json_text;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(field), std::string::npos)
        << "message \"" << e.what() << "\" does not name " << field;
  }
}

TEST(ProblemJson, BadInputsNameTheField) {
  const std::string ok_noise = R"("noise_cov": [[1, 0], [0, 1]])";
  expect_input_error_naming(
      R"({"kind": "quadratic", "clients": [{"hessian": [[1, 0.5], [0, 1]], "optimum": [0, 0], )" +
          ok_noise + "}]}",
      "clients[0].hessian");  // not symmetric
  expect_input_error_naming(
      R"({"kind": "quadratic", "clients": [{"hessian": [[1, 0], [0, -1]], "optimum": [0, 0], )" +
          ok_noise + "}]}",
      "clients[0].hessian");  // not positive definite
  expect_input_error_naming(
      R"({"kind": "quadratic", "clients": [{"hessian": [[1, 0], [0, 1]], "optimum": [0, 0, 0], )" +
          ok_noise + "}]}",
      "clients[0].hessian");  // shape does not match the optimum's length
  expect_input_error_naming(
      R"({"kind": "quadratic", "clients": [{"hessian": [[1, 0], [0]], "optimum": [0, 0], )" +
          ok_noise + "}]}",
      "clients[0].hessian[1]");  // ragged rows
  expect_input_error_naming(
      R"({"kind": "quadratic", "clients": [{"hessian": [[1]], "noise_cov": [[1]]}]})",
      "clients[0].optimum");  // missing field
  expect_input_error_naming(R"({"clients": []})", "kind");
  expect_input_error_naming(
      R"({"kind": "quadratic", "clients": [{"hessian": [[1]], "optimum": [0], "noise_cov": [[-1]]}]})",
      "clients[0].noise_cov");
  expect_input_error_naming(
      R"({"kind": "logistic", "l2": 0.1, "batch_size": 1, "clients": [{"features": [[1, 0], [0, 1]], "labels": [1, 0]}]})",
      "clients[0].labels[1]");  // label not ±1
  expect_input_error_naming(
      R"({"kind": "logistic", "l2": 0.1, "clients": [{"features": [[1, 0]], "labels": [1]}]})",
      "batch_size");
}

// The strict JSON reader of problem files (docs/PROBLEM_FORMATS.md). Statement: on valid text
// it builds the same document as nlohmann::json::parse; a number that overflows double and a key
// given twice in one object are InputErrors naming the source and the byte or the key's path.
// Decision: exact document equality; the messages contain the expected names.
TEST(ProblemJson, StrictReaderMatchesNlohmannAndNamesOverflowAndDuplicateKeys) {
  const std::string text =
      R"({"a": [1, -2, 3.5, 18446744073709551615, true, null, "s", {"b": [[]], "c": {}}], "d": {}})";
  EXPECT_EQ(theory::parse_json_text(text, "doc"), nlohmann::json::parse(text));
  const auto expect_message = [](const std::string& bad, const std::string& expected) {
    try {
      (void)theory::parse_json_text(bad, "bad.json");
      ADD_FAILURE() << "no InputError for " << bad;
    } catch (const InputError& e) {
      fmt::print("{} -> {}\n", bad, e.what());
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  };
  expect_message(R"({"l2": 1e999})", "bad.json: number out of range at byte");
  expect_message(R"({"l2": -1e999})", "-1e999");
  expect_message(R"({"kind": "a", "kind": "b"})", "bad.json: kind: duplicate key");
  expect_message(R"({"clients": [{}, {"optimum": [0], "optimum": [1]}]})",
                 "bad.json: clients[1].optimum: duplicate key");
  expect_message(R"({"a": [1, 2)", "bad.json: malformed JSON (byte");
  // The same key in different objects is not a duplicate.
  EXPECT_NO_THROW((void)theory::parse_json_text(R"({"x": {"k": 1}, "y": {"k": 2}})", "ok"));
}

// Unknown fields (docs/PROBLEM_FORMATS.md). Statement: a key the format does not define, at
// top level or in a client, is an InputError naming it with the expected keys; everything the
// writer emits (problem_to_json) and the "generator" record of the committed examples is
// accepted. Decision: messages contain the names; the round trip reproduces the JSON text.
TEST(ProblemJson, UnknownFieldsAreRejectedAndTheWritersOutputIsAccepted) {
  expect_input_error_naming(
      R"({"kind": "quadratic", "clients": [{"hessian": [[1]], "hesian": [[1]], "optimum": [0], "noise_cov": [[1]]}]})",
      "bad.json: clients[0].hesian: unknown field (expected hessian, optimum, noise_cov, weight)");
  expect_input_error_naming(
      R"({"kind": "quadratic", "clients": [{"hessian": [[1]], "optimum": [0], "noise_cov": [[1]]}], "extra": 1})",
      "bad.json: extra: unknown field");
  expect_input_error_naming(
      R"({"kind": "logistic", "l2": 0.1, "lambda": 0.1, "batch_size": 1, "clients": [{"features": [[1]], "labels": [1]}]})",
      "bad.json: lambda: unknown field");
  expect_input_error_naming(
      R"({"kind": "logistic", "l2": 0.1, "batch_size": 1, "clients": [{"features": [[1]], "labels": [1], "hessian": [[1]]}]})",
      "bad.json: clients[0].hessian: unknown field (expected features, labels, weight)");
  expect_input_error_naming(
      R"({"kind": "logistic", "l2": 0.1, "batch_size": 1, "clients": [{"features": [[1]], "label": [1]}]})",
      "bad.json: clients[0].label: unknown field");
  expect_input_error_naming(
      R"({"kind": "logistic", "l2": 0.1, "batch_size": 4294967297, "clients": [{"features": [[1]], "labels": [1]}]})",
      "bad.json: batch_size: 4294967297 is out of range");
  expect_input_error_naming(
      R"({"kind": "quadratic", "generator": 7, "clients": [{"hessian": [[1]], "optimum": [0], "noise_cov": [[1]]}]})",
      "bad.json: generator: expected an object");
  const theory::LogisticProblem l = small_logistic(2);
  const std::string ltext = theory::problem_to_json(l).dump();
  const auto lback =
      theory::parse_problem(theory::parse_json_text(ltext, "roundtrip"), "roundtrip");
  EXPECT_EQ(theory::problem_to_json(*lback).dump(), ltext);
  nlohmann::json with_generator = theory::problem_to_json(l);
  with_generator["generator"] = {{"dim", 2}, {"seed", 1}};
  EXPECT_NO_THROW((void)theory::parse_problem(with_generator, "with generator"));
}

}  // namespace
}  // namespace fedverify
