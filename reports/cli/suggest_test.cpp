// "Did you mean" (suggest.hpp): the edit distance is the optimal-string-alignment one (each
// insertion, deletion, substitution or adjacent transposition costs 1), and a suggestion is made
// only for a near miss — never for a word that is close to nothing.
#include "reports/cli/suggest.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "theory/base/input_error.hpp"

namespace fedverify::reports {
namespace {

TEST(EditDistance, CountsEachEditOnce) {
  EXPECT_EQ(edit_distance("gamma", "gamma"), 0);
  EXPECT_EQ(edit_distance("gama", "gamma"), 1);     // deletion
  EXPECT_EQ(edit_distance("repot", "report"), 1);   // deletion
  EXPECT_EQ(edit_distance("sedd", "seed"), 1);      // substitution
  EXPECT_EQ(edit_distance("chians", "chains"), 1);  // adjacent transposition
  EXPECT_EQ(edit_distance("", "abc"), 3);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3);  // the textbook case
  EXPECT_EQ(edit_distance("abc", "cba"), 2);
}

TEST(ClosestName, SuggestsNearMissesOnly) {
  const std::vector<std::string> commands = {"predict", "simulate", "conformance", "check",
                                             "report"};
  EXPECT_EQ(closest_name("repot", commands), "report");
  EXPECT_EQ(closest_name("chek", commands), "check");
  EXPECT_EQ(closest_name("simualte", commands), "simulate");
  EXPECT_FALSE(closest_name("frobnicate", commands).has_value());
  EXPECT_FALSE(closest_name("ab", {"cd"}).has_value());  // 2 edits of a 2-letter word: no
  EXPECT_FALSE(closest_name(std::string(100, 'x'), commands).has_value());
}

TEST(CheckSpelling, NamesTheCommandAndTheOption) {
  CLI::App app;
  double gamma = 0;
  app.add_subcommand("predict")->add_option("--gamma", gamma);
  app.add_subcommand("report");
  try {
    check_spelling(app, {"predict", "--gama", "0.1"});
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("predict: unknown option --gama (did you mean --gamma?)"),
              std::string::npos)
        << e.what();
  }
  try {
    check_spelling(app, {"repot"});
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean report?"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(check_spelling(app, {"predict", "--gamma=0.1"}));
  EXPECT_NO_THROW(check_spelling(app, {"predict", "--", "--anything"}));  // after --: positional
}

// The top level: no command at all lists the commands; a misspelt top-level option is named with
// its closest spelling (CLI11 said "A subcommand is required" to both); --help and --version are
// CLI11's to answer.
TEST(CheckSpelling, TopLevelListsTheCommandsAndSuggestsOptions) {
  CLI::App app;
  app.set_version_flag("--version", "x");
  app.add_subcommand("predict");
  app.add_subcommand("report");
  try {
    check_spelling(app, {});
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("a command is required: predict, report"),
              std::string::npos)
        << e.what();
  }
  try {
    check_spelling(app, {"--versoin"});
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown option --versoin (did you mean --version?)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_NO_THROW(check_spelling(app, {"--version"}));
  EXPECT_NO_THROW(check_spelling(app, {"--help"}));
}

}  // namespace
}  // namespace fedverify::reports
