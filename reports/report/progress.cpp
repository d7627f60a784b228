#include "reports/report/progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace fedverify::reports {
namespace {

// FEDVERIFY_PROGRESS=1: the line is drawn whatever stderr is, from the first update on.
bool forced() {
  const char* value = std::getenv("FEDVERIFY_PROGRESS");
  return value != nullptr && std::strcmp(value, "1") == 0;
}

}  // namespace

std::string duration_text(double seconds) {
  const long s = std::lround(std::max(seconds, 0.0));
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
}

ProgressLine::ProgressLine(std::string label, std::string unit, double delay_seconds)
    : label_(std::move(label)),
      unit_(std::move(unit)),
      delay_(forced() ? 0.0 : delay_seconds),
      enabled_(forced() || isatty(STDERR_FILENO) != 0) {}

void ProgressLine::update(long done, long total, std::string_view item) {
  if (!enabled_) return;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (elapsed < delay_) return;
  const std::string eta =
      done > 0
          ? duration_text(elapsed / static_cast<double>(done) * static_cast<double>(total - done))
          : std::string("?");
  const std::string running = item.empty() ? std::string() : fmt::format(" done, running {}", item);
  fmt::print(stderr, "\r{}: {}/{} {}{}  elapsed {}  eta {}\033[K", label_, done, total, unit_,
             running, duration_text(elapsed), eta);
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressLine::finish() {
  if (drawn_) fmt::print(stderr, "\r\033[K");
  drawn_ = false;
}

estimators::Progress ProgressLine::callback() {
  return [this](int done, int total) { update(done, total); };
}

}  // namespace fedverify::reports
