// Run specs expand into exactly the command line they stand for, and malformed specs are
// refused naming the file and the key.
#include "reports/cli/run_spec.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "theory/base/input_error.hpp"

namespace fedverify::reports {
namespace {

// A spec file in the test's temporary directory.
std::string write_spec(const std::string& name, const std::string& text) {
  std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

// Every option of simulate is known (the command line's own lookup is CLI11's).
bool any_option(const std::string& /*subcommand*/, const std::string& option) {
  return option != "--not-an-option";
}

std::string error_of(const std::vector<std::string>& args) {
  try {
    expand_run_spec(args, any_option);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(RunSpec, ExpandsRightAfterTheSubcommand) {
  const std::string path = write_spec(
      "spec_ok.json",
      R"({"algo": "fedopt", "gamma": 0.05, "local_steps": 20, "chains": 1024, "quick": true,
          "verbose": false, "server": {"name": "adam", "lr": 0.01, "eps": 0.1}})");
  const std::vector<std::string> got =
      expand_run_spec({"simulate", "--spec", path, "--seed", "7"}, any_option);
  // nlohmann::json orders keys alphabetically; integers stay integers; false flags vanish.
  const std::vector<std::string> expected = {
      "simulate", "--algo",  "fedopt",   "--chains",
      "1024",     "--gamma", "0.05",     "--local-steps",
      "20",       "--quick", "--server", "adam:eps=0.1,lr=0.01",
      "--seed",   "7"};
  EXPECT_EQ(got, expected);
}

TEST(RunSpec, WithoutSpecTheArgumentsAreUnchanged) {
  const std::vector<std::string> args = {"predict", "--gamma", "0.1"};
  EXPECT_EQ(expand_run_spec(args, any_option), args);
}

TEST(RunSpec, ErrorsNameTheFileAndTheKey) {
  const std::string bad_value = write_spec("spec_bad_value.json", R"({"gamma": [1]})");
  EXPECT_EQ(error_of({"simulate", "--spec", bad_value}),
            bad_value + ": gamma: expected a string or a number");
  const std::string unknown = write_spec("spec_unknown.json", R"({"not_an_option": 1})");
  EXPECT_EQ(error_of({"simulate", "--spec", unknown}),
            unknown + ": not_an_option: not an option of simulate");
  const std::string no_name = write_spec("spec_no_name.json", R"({"client": {"mu": 1}})");
  EXPECT_EQ(error_of({"simulate", "--spec", no_name}),
            no_name + ": client.name: required, a string (the optimiser's name)");
  const std::string nested = write_spec("spec_nested.json", R"({"spec": "other.json"})");
  EXPECT_EQ(error_of({"simulate", "--spec", nested}),
            nested + ": spec: a spec cannot include another");
  const std::string array = write_spec("spec_array.json", "[1, 2]");
  EXPECT_EQ(error_of({"simulate", "--spec=" + array}), array + ": expected a JSON object");
  EXPECT_EQ(error_of({"simulate", "--spec"}), "--spec: expected a file name");
  EXPECT_NE(error_of({"simulate", "--spec", "/nonexistent/spec.json"}).find("cannot open"),
            std::string::npos);
}

}  // namespace
}  // namespace fedverify::reports
