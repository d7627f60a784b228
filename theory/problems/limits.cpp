#include "theory/problems/limits.hpp"

#include <fmt/format.h>

#include <atomic>
#include <cmath>

#include "theory/base/input_error.hpp"

namespace fedverify::theory::limits {

std::int64_t saturating_mul(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) return std::numeric_limits<std::int64_t>::max();
  return out;
}

std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) return std::numeric_limits<std::int64_t>::max();
  return out;
}

void require_range(std::string_view field, std::int64_t value, std::int64_t lo, std::int64_t hi,
                   std::string_view reason) {
  if (value >= lo && value <= hi) return;
  throw InputError(fmt::format("{}: must lie in [{}, {}], got {}{}{}", field, lo, hi, value,
                               reason.empty() ? "" : " (",
                               reason.empty() ? "" : std::string(reason) + ")"));
}

void require_memory(std::string_view field, std::string_view what, std::int64_t bytes,
                    std::int64_t budget) {
  if (bytes <= budget) return;
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  throw InputError(fmt::format(
      "{}: {} would need about {} bytes ({:.3g} GiB), beyond the memory budget of {} bytes; "
      "reduce {} or raise the budget with --memory-budget BYTES",
      field, what, bytes, static_cast<double>(bytes) / kGiB, budget, field));
}

namespace {
std::atomic<double>& closed_form_limit() {
  static std::atomic<double> seconds{kDefaultClosedFormSeconds};
  return seconds;
}
}  // namespace

double closed_form_seconds() { return closed_form_limit().load(); }

void set_closed_form_seconds(double seconds) {
  if (!(seconds > 0) || !std::isfinite(seconds)) {
    throw InputError(fmt::format("--max-seconds: must be finite and > 0, got {}", seconds));
  }
  closed_form_limit().store(seconds);
}

void require_closed_form_time(std::string_view field, std::string_view what, double seconds,
                              std::string_view formula, std::string_view advice) {
  if (seconds <= closed_form_seconds()) return;
  throw InputError(fmt::format(
      "{}: {} would take about {:.3g} s ({}), beyond the limit of {:g} s (--max-seconds); {}",
      field, what, seconds, formula, closed_form_seconds(), advice));
}

std::string escape_control(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto u = static_cast<unsigned char>(ch);
    switch (ch) {
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (u < 0x20 || u == 0x7f) {
          out += fmt::format("\\u{:04x}", u);
        } else {
          out += ch;
        }
    }
  }
  return out;
}

std::string quote_input(std::string_view text, std::size_t max_chars) {
  if (text.size() <= max_chars) return escape_control(text);
  return fmt::format("{}… ({} bytes)", escape_control(text.substr(0, max_chars)), text.size());
}

}  // namespace fedverify::theory::limits
