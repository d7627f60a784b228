// Publishing a directory of output files (REPORT.md, results.json, figures) so that a reader of
// the target directory sees the complete old set or the complete new set: never a mix of the
// two, never a truncated file, and never a silent success after a failed write.
//
// Strategy. Files are written into a staging directory beside the target, in the same parent
// and so on the same file system: PARENT/.NAME.staging-XXXXXX. Every write is checked, flushed,
// fsync'd and closed before it counts. publish() then swaps staging and target in one atomic
// step, renameat2(RENAME_EXCHANGE) (or rename(2) when the target does not exist yet), fsyncs the
// parent, and deletes the old set, which now sits at the staging path. A run that fails or is
// killed before publish() leaves the target untouched; its staging directory is removed by the
// destructor, or, after a SIGKILL, by the next StagedDirectory for the same target.
//
// Safety. The swap replaces the whole directory, so the target must be one that fedverify
// published before (it holds the marker file kMarker), an empty directory, or absent. Any
// other directory is refused: swapping it would delete files fedverify did not write.
//
// Every failure throws InputError naming `field` (the command-line flag, e.g. "--out") and the
// system's reason, so the command exits with code 2 and one line on stderr.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace fedverify::reports {

class StagedDirectory {
 public:
  // The marker file written into every published directory.
  static constexpr const char* kMarker = ".fedverify-output";

  // Checks the target (see Safety), removes stale staging directories of earlier killed runs
  // and creates a fresh staging directory. Throws InputError naming `field`.
  StagedDirectory(const std::filesystem::path& target, std::string field);
  ~StagedDirectory();  // removes the staging directory unless published
  StagedDirectory(const StagedDirectory&) = delete;
  StagedDirectory& operator=(const StagedDirectory&) = delete;

  const std::filesystem::path& target() const { return target_; }
  // Where files are written before publish(); programs that write files themselves (gnuplot)
  // are pointed here.
  const std::filesystem::path& staging() const { return staging_; }

  // Writes `content` to staging()/name: every write(2) checked, then fsync and close.
  void write_file(const std::string& name, std::string_view content) const;
  // Takes over a file another program wrote to staging()/name: it must exist and be non-empty;
  // it is fsync'd. Returns false (and removes any partial file) when it is missing or empty.
  bool adopt_file(const std::string& name) const;
  // The content of staging()/name, written before publish() (REPORT.html inlines the figures);
  // "" when there is no such file or it cannot be read.
  std::string read_file(const std::string& name) const;

  // Writes the marker, swaps staging and target atomically, fsyncs the parent directory and
  // removes the old set. After it the object owns nothing.
  void publish();

 private:
  [[noreturn]] void fail(std::string_view what, const std::filesystem::path& path, int error) const;

  std::filesystem::path target_;
  std::filesystem::path staging_;
  std::string field_;
  bool published_ = false;
};

}  // namespace fedverify::reports
