// A child process spoken to in JSON lines over its stdin and stdout: the implementation under test
// of `fedverify conformance` (docs/DESIGN-EXTENSIONS.md, "Conformance"). The command is run by
// /bin/sh -c, so it may carry arguments ("python3 my_fedavg.py --lr 0.1"); its stderr is
// inherited (the user sees its tracebacks).
//
// It cannot hang fedverify or exhaust its memory: every message must be read or written within
// `timeout_seconds`, and a line longer than `max_line_bytes` (the largest valid message) is
// refused before it is buffered; both end the check with InputError naming --exec. The child runs
// in its own process group, which is terminated (SIGTERM, then SIGKILL after a grace period) when
// the check ends early, so a shell's grandchild cannot keep running either.
#pragma once

#include <nlohmann/json.hpp>

#include <sys/types.h>
#include <cstddef>
#include <string>
#include <string_view>

namespace fedverify::reports {

// The default of --timeout: seconds an implementation may take to answer one message.
inline constexpr double kDefaultMessageTimeout = 60;
inline constexpr double kMaxMessageTimeout = 86400;  // a day: beyond, poll's milliseconds overflow

// Where the protocol runs: the child's stdin and stdout, or file descriptors 3 (fedverify → child)
// and 4 (child → fedverify), announced to the child as FEDVERIFY_PROTOCOL_FDS=3,4, with its stdout
// sent to fedverify's stderr so that a framework's prints cannot corrupt the protocol
// (--protocol-fds).
enum class ProtocolPipes { stdio, fds };

class ChildProcess {
 public:
  // Starts `command`. Throws InputError naming --exec when it cannot be started.
  ChildProcess(const std::string& command, double timeout_seconds, std::size_t max_line_bytes,
               ProtocolPipes pipes = ProtocolPipes::stdio);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // One JSON object per line. send throws InputError naming --exec when the child has closed its
  // stdin or does not read it within the timeout; receive when it closed its stdout (exited),
  // did not finish a line within the timeout, wrote a line longer than the bound, or a line that
  // is not a JSON object (the message quotes the start of the line). The non-finite numbers of
  // Python's json module (NaN, Infinity, -Infinity, which JSON lacks) are read as null.
  void send(const nlohmann::json& message);
  nlohmann::json receive();

  // Closes the pipes and waits; the exit status (128 + signal when killed). `terminate`: the
  // check is over whatever the child is doing (it diverged, or an error ended the run), so the
  // process group is terminated first.
  int finish(bool terminate = false);

 private:
  pid_t pid_ = -1;
  int to_child_ = -1;
  int from_child_ = -1;
  std::string command_;
  double timeout_seconds_;
  std::size_t max_line_bytes_;
  std::string pending_;  // bytes read past the last complete line
};

// `line` with the bare tokens NaN, Infinity and -Infinity outside strings replaced by null.
std::string nonfinite_tokens_as_null(std::string_view line);

// One line of the protocol as a JSON object (non-finite tokens read as null); throws InputError
// naming --exec, quoting the start of the line, when it is not one.
nlohmann::json parse_protocol_line(std::string_view line);

}  // namespace fedverify::reports
