#include "reports/report/staged_directory.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>
#include <vector>

#include "theory/base/input_error.hpp"

namespace fedverify::reports {
namespace {

namespace fs = std::filesystem;

// Files a report directory holds; a directory with nothing else was written by fedverify (a
// report published before the marker existed) and may be replaced.
bool is_report_file(const fs::path& name) {
  const std::string n = name.filename().string();
  const std::string ext = name.extension().string();
  return n == StagedDirectory::kMarker || n == "REPORT.md" || n == "REPORT.html" ||
         n == "results.json" || ext == ".svg";
}

std::string staging_prefix(const fs::path& target) {
  std::string prefix = target.filename().string();
  prefix.insert(0, 1, '.');
  prefix.append(".staging-");
  return prefix;
}

// fsync of a directory, so that the renames and creations inside it are durable.
int sync_directory(const fs::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return errno;
  const int rc = ::fsync(fd) == 0 ? 0 : errno;
  ::close(fd);
  return rc;
}

}  // namespace

void StagedDirectory::fail(std::string_view what, const fs::path& path, int error) const {
  throw InputError(fmt::format("{}: {} {}: {}", field_, what, path.string(),
                               std::generic_category().message(error)));
}

StagedDirectory::StagedDirectory(const fs::path& target, std::string field)
    : field_(std::move(field)) {
  std::error_code ec;
  target_ = fs::absolute(target, ec).lexically_normal();
  if (ec) fail("cannot resolve", target, ec.value());
  if (!target_.has_filename()) target_ = target_.parent_path();  // "dir/" → "dir"
  if (target_ == target_.root_path() || target_.filename() == "..") {
    throw InputError(
        fmt::format("{}: {} cannot be replaced by a report directory; name a new or "
                    "empty directory",
                    field_, target.string()));
  }
  const fs::path parent = target_.parent_path();
  fs::create_directories(parent, ec);
  if (ec) fail("cannot create", parent, ec.value());

  const fs::file_status status = fs::symlink_status(target_, ec);
  if (fs::exists(status)) {
    if (!fs::is_directory(status)) {
      throw InputError(
          fmt::format("{}: {} exists and is not a directory", field_, target_.string()));
    }
    for (const auto& entry : fs::directory_iterator(target_, ec)) {
      if (!is_report_file(entry.path())) {
        throw InputError(fmt::format(
            "{}: {} holds {}, which fedverify did not write; the report replaces the whole "
            "directory, so name a new or empty directory (or one that holds a report)",
            field_, target_.string(), entry.path().filename().string()));
      }
    }
    if (ec) fail("cannot read", target_, ec.value());
  }

  // Staging directories left by runs that were killed before publishing.
  const std::string prefix = staging_prefix(target_);
  for (const auto& entry : fs::directory_iterator(parent, ec)) {
    if (entry.path().filename().string().rfind(prefix, 0) == 0) fs::remove_all(entry.path(), ec);
  }

  std::string pattern = (parent / (prefix + "XXXXXX")).string();
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (::mkdtemp(buffer.data()) == nullptr)
    fail("cannot create a staging directory in", parent, errno);
  staging_ = fs::path(buffer.data());
  // mkdtemp creates the directory 0700; the published report gets the mode of any directory
  // the user creates (0777 less the umask). umask can only be read by setting it.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  if (::chmod(staging_.c_str(), 0777 & ~mask) != 0) fail("cannot set the mode of", staging_, errno);
}

StagedDirectory::~StagedDirectory() {
  if (published_ || staging_.empty()) return;
  std::error_code ec;
  fs::remove_all(staging_, ec);  // nothing to report from a destructor: the target is untouched
}

void StagedDirectory::write_file(const std::string& name, std::string_view content) const {
  const fs::path path = staging_ / name;
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail("cannot create", path, errno);
  const char* data = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, data, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = n < 0 ? errno : EIO;
      ::close(fd);
      fail("cannot write", path, error);
    }
    data += n;
    left -= static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) {
    const int error = errno;
    ::close(fd);
    fail("cannot write (fsync)", path, error);
  }
  if (::close(fd) != 0) fail("cannot write (close)", path, errno);
}

std::string StagedDirectory::read_file(const std::string& name) const {
  std::ifstream in(staging_ / name, std::ios::binary);
  if (!in) return "";
  std::ostringstream text;
  text << in.rdbuf();
  return in.bad() ? "" : text.str();
}

bool StagedDirectory::adopt_file(const std::string& name) const {
  const fs::path path = staging_ / name;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec) || fs::file_size(path, ec) == 0 || ec) {
    fs::remove(path, ec);
    return false;
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail("cannot open", path, errno);
  const int rc = ::fsync(fd) == 0 ? 0 : errno;
  ::close(fd);
  if (rc != 0) fail("cannot write (fsync)", path, rc);
  return true;
}

void StagedDirectory::publish() {
  write_file(kMarker, "A directory written by fedverify; it is replaced as a whole.\n");
  if (const int rc = sync_directory(staging_); rc != 0) fail("cannot sync", staging_, rc);
  std::error_code ec;
  const bool replace = fs::exists(target_, ec);
  if (!replace) {
    if (::rename(staging_.c_str(), target_.c_str()) != 0) fail("cannot publish", target_, errno);
  } else if (::renameat2(AT_FDCWD, staging_.c_str(), AT_FDCWD, target_.c_str(), RENAME_EXCHANGE) !=
             0) {
    if (errno != EINVAL && errno != ENOSYS) fail("cannot publish", target_, errno);
    // No atomic exchange on this file system: move the old set aside, then the new one in. A
    // reader may briefly find no directory, but never a mixed or partial one.
    const fs::path old = staging_.string() + "-old";
    if (::rename(target_.c_str(), old.c_str()) != 0) fail("cannot publish", target_, errno);
    if (::rename(staging_.c_str(), target_.c_str()) != 0) fail("cannot publish", target_, errno);
    staging_ = old;
  }
  published_ = true;
  if (const int rc = sync_directory(target_.parent_path()); rc != 0) {
    fail("cannot sync", target_.parent_path(), rc);
  }
  if (replace) fs::remove_all(staging_, ec);  // the old set; a leftover is removed next time
}

}  // namespace fedverify::reports
