#include "reports/conformance/child_process.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

#include "theory/base/input_error.hpp"
#include "theory/problems/limits.hpp"

namespace fedverify::reports {
namespace {

// A line of the protocol is at most this long (K × d numbers); a longer one is refused rather
// than buffered without bound.
constexpr std::size_t kMaxLineBytes = std::size_t{1} << 30;

}  // namespace

ChildProcess::ChildProcess(const std::string& command) : command_(command) {
  int in[2], out[2];  // in: parent → child, out: child → parent
  if (pipe(in) != 0 || pipe(out) != 0) {
    throw InputError(fmt::format("--exec: cannot create pipes ({})", std::strerror(errno)));
  }
  pid_ = fork();
  if (pid_ < 0) throw InputError(fmt::format("--exec: cannot fork ({})", std::strerror(errno)));
  if (pid_ == 0) {  // the child: stdin from `in`, stdout to `out`
    dup2(in[0], STDIN_FILENO);
    dup2(out[1], STDOUT_FILENO);
    close(in[0]);
    close(in[1]);
    close(out[0]);
    close(out[1]);
    execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  signal(SIGPIPE, SIG_IGN);  // a child that exits early is an error message, not a signal
  to_child_ = fdopen(in[1], "w");
  from_child_ = fdopen(out[0], "r");
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    finish();
  }
}

void ChildProcess::send(const nlohmann::json& message) {
  const std::string line = message.dump() + "\n";
  if (std::fwrite(line.data(), 1, line.size(), to_child_) != line.size() ||
      std::fflush(to_child_) != 0) {
    throw InputError(fmt::format("--exec: the implementation \"{}\" stopped reading its input",
                                 theory::limits::quote_input(command_)));
  }
}

nlohmann::json ChildProcess::receive() {
  std::string line;
  int c = 0;
  while ((c = std::fgetc(from_child_)) != EOF && c != '\n') {
    line.push_back(static_cast<char>(c));
    if (line.size() > kMaxLineBytes) throw InputError("--exec: a protocol line exceeds 1 GiB");
  }
  if (c == EOF && line.empty()) {
    throw InputError(fmt::format(
        "--exec: the implementation \"{}\" closed its output before the run ended (did it exit?)",
        theory::limits::quote_input(command_)));
  }
  nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    throw InputError(fmt::format("--exec: expected a JSON object per line, got \"{}\"",
                                 theory::limits::quote_input(line)));
  }
  return j;
}

int ChildProcess::finish() {
  if (to_child_ != nullptr) std::fclose(to_child_);
  if (from_child_ != nullptr) std::fclose(from_child_);
  to_child_ = from_child_ = nullptr;
  int status = 0;
  if (pid_ > 0 && waitpid(pid_, &status, 0) == pid_) {
    pid_ = -1;
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  }
  pid_ = -1;
  return -1;
}

}  // namespace fedverify::reports
