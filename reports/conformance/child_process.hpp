// A child process spoken to in JSON lines over its stdin and stdout: the implementation under test
// of `fedverify conformance` (docs/DESIGN-EXTENSIONS.md, "Conformance"). The command is run by
// /bin/sh -c, so it may carry arguments ("python3 my_fedavg.py --lr 0.1"); its stderr is
// inherited (the user sees its tracebacks).
#pragma once

#include <nlohmann/json.hpp>

#include <sys/types.h>
#include <cstdio>
#include <string>

namespace fedverify::reports {

class ChildProcess {
 public:
  // Starts `command`. Throws InputError naming --exec when it cannot be started.
  explicit ChildProcess(const std::string& command);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // One JSON object per line. send throws InputError naming --exec when the child has closed its
  // stdin; receive when it closed its stdout (exited) or wrote a line that is not a JSON object
  // (the message quotes the start of the line).
  void send(const nlohmann::json& message);
  nlohmann::json receive();

  // Closes the pipes and waits; the exit status (128 + signal when killed).
  int finish();

 private:
  pid_t pid_ = -1;
  FILE* to_child_ = nullptr;
  FILE* from_child_ = nullptr;
  std::string command_;
};

}  // namespace fedverify::reports
