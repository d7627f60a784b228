// reports/report/staged_directory: a reader sees the old set or the new set, never a mix; a
// directory fedverify did not write is never replaced. (Faults under a full disk, a read-only
// file system and SIGKILL at every write are exercised on the whole command by
// verify/faults/report_faults.sh.)
#include "reports/report/staged_directory.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "theory/base/input_error.hpp"

namespace fedverify::reports {
namespace {

namespace fs = std::filesystem;

class StagedDirectoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("fedverify-staged-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  static std::set<std::string> names(const fs::path& dir) {
    std::set<std::string> out;
    for (const auto& e : fs::directory_iterator(dir)) out.insert(e.path().filename().string());
    return out;
  }
  static std::string read(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  fs::path root_;
};

TEST_F(StagedDirectoryTest, PublishesIntoANewDirectoryAndLeavesNoStaging) {
  const fs::path out = root_ / "report";
  {
    StagedDirectory staged(out, "--out");
    staged.write_file("REPORT.md", "new");
    EXPECT_FALSE(fs::exists(out)) << "nothing is visible before publish()";
    staged.publish();
  }
  EXPECT_EQ(names(out), (std::set<std::string>{"REPORT.md", StagedDirectory::kMarker}));
  EXPECT_EQ(read(out / "REPORT.md"), "new");
  EXPECT_EQ(names(root_), std::set<std::string>{"report"});
}

TEST_F(StagedDirectoryTest, ReplacesTheWholeOldSet) {
  const fs::path out = root_ / "report";
  {
    StagedDirectory first(out, "--out");
    first.write_file("REPORT.md", "old");
    first.write_file("old-figure.svg", "<svg/>");
    first.publish();
  }
  {
    StagedDirectory second(out, "--out");
    second.write_file("REPORT.md", "new");
    EXPECT_EQ(read(out / "REPORT.md"), "old") << "the old set stays until publish()";
    second.publish();
  }
  EXPECT_EQ(names(out), (std::set<std::string>{"REPORT.md", StagedDirectory::kMarker}))
      << "a figure of the old run must not survive beside the new report";
  EXPECT_EQ(read(out / "REPORT.md"), "new");
  EXPECT_EQ(names(root_), std::set<std::string>{"report"});
}

TEST_F(StagedDirectoryTest, AnAbandonedRunLeavesTheOldSetUntouched) {
  const fs::path out = root_ / "report";
  fs::create_directories(out);
  std::ofstream(out / "REPORT.md") << "old";
  {
    StagedDirectory staged(out, "--out");
    staged.write_file("REPORT.md", "half");
  }  // e.g. an exception before publish()
  EXPECT_EQ(read(out / "REPORT.md"), "old");
  EXPECT_EQ(names(root_), std::set<std::string>{"report"});
}

// A report written without the marker (as `check` writes one) holds only report files, REPORT.html
// among them: the next run may replace it.
TEST_F(StagedDirectoryTest, ReplacesAnUnmarkedReportWithItsHtml) {
  const fs::path out = root_ / "report";
  fs::create_directories(out);
  for (const char* f : {"REPORT.md", "REPORT.html", "results.json", "figure.svg"}) {
    std::ofstream(out / f) << "old";
  }
  StagedDirectory staged(out, "--out");
  staged.write_file("REPORT.md", "new");
  staged.publish();
  EXPECT_EQ(read(out / "REPORT.md"), "new");
  EXPECT_FALSE(fs::exists(out / "REPORT.html"));
}

TEST_F(StagedDirectoryTest, StagingLeftByAKilledRunIsRemovedByTheNextOne) {
  const fs::path out = root_ / "report";
  fs::create_directories(root_ / ".report.staging-abc123");
  std::ofstream(root_ / ".report.staging-abc123" / "REPORT.md") << "partial";
  StagedDirectory staged(out, "--out");
  staged.publish();
  EXPECT_EQ(names(root_), std::set<std::string>{"report"});
}

TEST_F(StagedDirectoryTest, RefusesADirectoryWithFilesFedverifyDidNotWrite) {
  const fs::path out = root_ / "mine";
  fs::create_directories(out);
  std::ofstream(out / "thesis.tex") << "precious";
  try {
    StagedDirectory staged(out, "--out");
    FAIL() << "a foreign directory was accepted";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("--out"), std::string::npos) << what;
    EXPECT_NE(what.find("thesis.tex"), std::string::npos) << what;
  }
  EXPECT_EQ(read(out / "thesis.tex"), "precious");
}

TEST_F(StagedDirectoryTest, RefusesAFileAndTheRoot) {
  std::ofstream(root_ / "file") << "x";
  EXPECT_THROW(StagedDirectory(root_ / "file", "--out"), InputError);
  EXPECT_THROW(StagedDirectory("/", "--out"), InputError);
}

TEST_F(StagedDirectoryTest, AdoptsOnlyNonEmptyFiles) {
  StagedDirectory staged(root_ / "report", "--out");
  std::ofstream(staged.staging() / "empty.svg").close();
  std::ofstream(staged.staging() / "full.svg") << "<svg/>";
  EXPECT_FALSE(staged.adopt_file("missing.svg"));
  EXPECT_FALSE(staged.adopt_file("empty.svg"));
  EXPECT_FALSE(fs::exists(staged.staging() / "empty.svg")) << "a partial file is removed";
  EXPECT_TRUE(staged.adopt_file("full.svg"));
}

}  // namespace
}  // namespace fedverify::reports
