// The progress line of the long-running commands (report, check, simulate, conformance; issue 31
// item 5): one line on stderr, rewritten in place ("\r… \033[K"), only when stderr is a
// terminal — a pipe, a file or a test sees nothing, so stdout and stderr stay exactly as
// documented — and only once the run has lasted `delay` seconds (a quick run does not flicker).
// One implementation for every command, so they all read alike:
//     simulate: 1200/3000 rounds  elapsed 4s  eta 6s
//     report: 3/39 claims done, running quadratic.exact-remainder-order  elapsed 12s  eta 2m36s
// Never changes a number: it only reads the counts it is given.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "estimators/simulation/simulate.hpp"

namespace fedverify::reports {

class ProgressLine {
 public:
  // `label` opens the line, `unit` names what is counted ("rounds", "claims"). The environment
  // variable FEDVERIFY_PROGRESS=1 draws the line whatever stderr is and without the delay (for
  // tests, and for logs that want it; docs/CLI.md).
  ProgressLine(std::string label, std::string unit, double delay_seconds = 1.0);
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;
  ~ProgressLine() { finish(); }

  // `done` of `total` finished; `item` (optional) is what runs now.
  void update(long done, long total, std::string_view item = {});
  // Clears the line (if one was drawn); later updates draw again.
  void finish();
  // update() as the simulation engine's callback (rounds done, rounds total).
  estimators::Progress callback();

  bool enabled() const { return enabled_; }

 private:
  std::string label_, unit_;
  double delay_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// "45s", "2m36s", "1h02m".
std::string duration_text(double seconds);

}  // namespace fedverify::reports
