#include "reports/conformance/child_process.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <string_view>
#include <thread>
#include <vector>

#include "theory/base/input_error.hpp"
#include "theory/problems/limits.hpp"

namespace fedverify::reports {
namespace {

constexpr std::string_view kProtocolFdsVariable = "FEDVERIFY_PROTOCOL_FDS";

using Clock = std::chrono::steady_clock;

constexpr std::size_t kReadChunkBytes = 1 << 16;
// A child told to stop (SIGTERM) has this long to exit before it is killed (SIGKILL).
constexpr auto kTerminationGrace = std::chrono::seconds(2);

// Milliseconds left until `deadline` for poll (0 when past it).
int remaining_ms(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return left.count() > 0 ? static_cast<int>(std::min<long long>(left.count(), 1 << 30)) : 0;
}

Clock::time_point deadline_after(double seconds) {
  return Clock::now() +
         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

void set_nonblocking(int fd) {
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  fcntl(fd, F_SETFD, FD_CLOEXEC);
}

// Waits for `pid` until `deadline`; its exit status as finish() returns it, or nullopt.
std::optional<int> wait_until(pid_t pid, Clock::time_point deadline) {
  for (;;) {
    int status = 0;
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) {
      if (WIFEXITED(status)) return WEXITSTATUS(status);
      if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
      return -1;
    }
    if (r < 0 && errno != EINTR) return -1;  // not our child any more
    if (Clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace

std::string nonfinite_tokens_as_null(std::string_view line) {
  std::string out;
  out.reserve(line.size());
  bool in_string = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (in_string) {
      out.push_back(c);
      if (c == '\\' && i + 1 < line.size()) {
        out.push_back(line[++i]);
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') in_string = true;
    bool replaced = false;
    for (const std::string_view token : {"-Infinity", "Infinity", "NaN"}) {
      if (line.substr(i, token.size()) == token) {
        out += "null";
        i += token.size() - 1;
        replaced = true;
        break;
      }
    }
    if (!replaced) out.push_back(c);
  }
  return out;
}

ChildProcess::ChildProcess(const std::string& command, double timeout_seconds,
                           std::size_t max_line_bytes, ProtocolPipes pipes)
    : command_(command), timeout_seconds_(timeout_seconds), max_line_bytes_(max_line_bytes) {
  // The child's environment (`environ`: unistd.h with _GNU_SOURCE), built before fork (the child
  // only calls async-signal-safe functions).
  std::vector<std::string> variables;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::string_view(*e).rfind(kProtocolFdsVariable, 0) != 0) variables.emplace_back(*e);
  }
  if (pipes == ProtocolPipes::fds) variables.push_back(std::string(kProtocolFdsVariable) + "=3,4");
  std::vector<char*> envp;
  envp.reserve(variables.size() + 1);
  for (std::string& v : variables) envp.push_back(v.data());
  envp.push_back(nullptr);
  // in: parent → child, out: child → parent. Close-on-exec from the start: a child started by
  // another thread at the same moment (--per-model's workers) must not inherit this child's ends,
  // or this child would never see its input end.
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) {
    throw InputError(fmt::format("--exec: cannot create pipes ({})", std::strerror(errno)));
  }
  pid_ = fork();
  if (pid_ < 0) throw InputError(fmt::format("--exec: cannot fork ({})", std::strerror(errno)));
  if (pid_ == 0) {  // the child, in a process group of its own
    setpgid(0, 0);
    // Both ends above fd 4 first, so that placing them cannot close one another.
    const int read_end = fcntl(in[0], F_DUPFD, 10), write_end = fcntl(out[1], F_DUPFD, 10);
    close(in[0]);
    close(in[1]);
    close(out[0]);
    close(out[1]);
    if (pipes == ProtocolPipes::fds) {  // protocol on 3 and 4; stdout to stderr, stdin empty
      dup2(read_end, 3);
      dup2(write_end, 4);
      dup2(STDERR_FILENO, STDOUT_FILENO);
      const int empty = open("/dev/null", O_RDONLY);
      dup2(empty, STDIN_FILENO);
      close(empty);
    } else {
      dup2(read_end, STDIN_FILENO);
      dup2(write_end, STDOUT_FILENO);
    }
    close(read_end);
    close(write_end);
    execle("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr), envp.data());
    _exit(127);
  }
  setpgid(pid_, pid_);  // also here: whichever runs first
  close(in[0]);
  close(out[1]);
  signal(SIGPIPE, SIG_IGN);  // a child that exits early is an error message, not a signal
  to_child_ = in[1];
  from_child_ = out[0];
  set_nonblocking(to_child_);
  set_nonblocking(from_child_);
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0) finish(true);
}

void ChildProcess::send(const nlohmann::json& message) {
  const std::string line = message.dump() + "\n";
  const Clock::time_point deadline = deadline_after(timeout_seconds_);
  std::size_t written = 0;
  while (written < line.size()) {
    pollfd p{to_child_, POLLOUT, 0};
    if (poll(&p, 1, remaining_ms(deadline)) == 0) {
      throw InputError(fmt::format(
          "--exec: the implementation \"{}\" did not read its input within {:g} s (--timeout)",
          theory::limits::quote_input(command_), timeout_seconds_));
    }
    const ssize_t n = write(to_child_, line.data() + written, line.size() - written);
    if (n > 0) {
      written += static_cast<std::size_t>(n);
    } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
      throw InputError(fmt::format("--exec: the implementation \"{}\" stopped reading its input",
                                   theory::limits::quote_input(command_)));
    }
  }
}

nlohmann::json ChildProcess::receive() {
  const Clock::time_point deadline = deadline_after(timeout_seconds_);
  std::size_t scanned = 0;  // pending_[0, scanned) holds no newline
  std::size_t newline = std::string::npos;
  bool closed = false;
  while ((newline = pending_.find('\n', scanned)) == std::string::npos) {
    scanned = pending_.size();
    if (pending_.size() > max_line_bytes_) {
      throw InputError(fmt::format(
          "--exec: a protocol line exceeds {} bytes, more than the largest valid message",
          max_line_bytes_));
    }
    pollfd p{from_child_, POLLIN, 0};
    if (poll(&p, 1, remaining_ms(deadline)) == 0) {
      throw InputError(
          fmt::format("--exec: the implementation \"{}\" did not answer within {:g} s (--timeout)",
                      theory::limits::quote_input(command_), timeout_seconds_));
    }
    char buffer[kReadChunkBytes];
    const ssize_t n = read(from_child_, buffer, sizeof buffer);
    if (n > 0) {
      pending_.append(buffer, static_cast<std::size_t>(n));
    } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
      closed = true;
      break;
    }
  }
  if (closed && pending_.empty()) {
    throw InputError(fmt::format(
        "--exec: the implementation \"{}\" closed its output before the run ended (did it exit?)",
        theory::limits::quote_input(command_)));
  }
  const std::size_t end = closed ? pending_.size() : newline;  // the last line may lack '\n'
  const std::string line = pending_.substr(0, end);
  pending_.erase(0, closed ? end : end + 1);
  return parse_protocol_line(line);
}

nlohmann::json parse_protocol_line(std::string_view line) {
  nlohmann::json j = nlohmann::json::parse(nonfinite_tokens_as_null(line), nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    throw InputError(fmt::format("--exec: expected a JSON object per line, got \"{}\"",
                                 theory::limits::quote_input(std::string(line))));
  }
  return j;
}

int ChildProcess::finish(bool terminate) {
  if (to_child_ >= 0) close(to_child_);
  if (from_child_ >= 0) close(from_child_);
  to_child_ = from_child_ = -1;
  if (pid_ <= 0) return -1;
  const pid_t pid = pid_;
  pid_ = -1;
  // A child that is not told to stop has the timeout to exit once its input is closed.
  if (!terminate) {
    if (const auto status = wait_until(pid, deadline_after(timeout_seconds_))) return *status;
  }
  kill(-pid, SIGTERM);
  const std::optional<int> status = wait_until(pid, Clock::now() + kTerminationGrace);
  kill(-pid, SIGKILL);  // the whole group: a grandchild that ignored SIGTERM outlives the shell
  if (status) return *status;
  int raw = 0;
  while (waitpid(pid, &raw, 0) < 0 && errno == EINTR) {
  }
  return 128 + SIGKILL;
}

}  // namespace fedverify::reports
