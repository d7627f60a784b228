#include "reports/report/typed_fields.hpp"

#include <cmath>
#include <cstdlib>
#include <string_view>
#include <vector>

namespace fedverify::reports {
namespace {

std::string trim(std::string_view s) {
  const auto first = s.find_first_not_of(' ');
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(' ');
  return std::string(s.substr(first, last - first + 1));
}

// The parts of `text` between its top-level ", " separators.
std::vector<std::string> top_level_parts(const std::string& text) {
  std::vector<std::string> parts;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '(' || c == '[' || c == '{') ++depth;
    if ((c == ')' || c == ']' || c == '}') && depth > 0) --depth;
    if (c == ',' && depth == 0) {
      parts.push_back(trim(std::string_view(text).substr(start, i - start)));
      start = i + 1;
    }
  }
  parts.push_back(trim(std::string_view(text).substr(start)));
  return parts;
}

// `text` as one number, or NaN: a leading Unicode minus (U+2212) is a minus, a trailing % divides
// by 100; nothing else may follow the number.
double as_number(std::string text) {
  const std::string minus = "\u2212";
  if (text.compare(0, minus.size(), minus) == 0) text.replace(0, minus.size(), 1, '-');
  double scale = 1;
  if (!text.empty() && text.back() == '%') {
    scale = 0.01;
    text = trim(std::string_view(text).substr(0, text.size() - 1));
  }
  if (text.empty()) return std::nan("");
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(v)) return std::nan("");
  return v * scale;
}

nlohmann::json number_or_null(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json();
}

}  // namespace

SettingFields setting_fields(const std::string& setting) {
  SettingFields out;
  for (const std::string& part : top_level_parts(setting)) {
    if (part.empty()) continue;
    const auto eq = part.find(" = ");
    if (eq == std::string::npos) {
      out.labels.push_back(part);
      continue;
    }
    const std::string name = trim(std::string_view(part).substr(0, eq));
    const std::string value = trim(std::string_view(part).substr(eq + 3));
    const double number = as_number(value);
    if (std::isnan(number)) {
      out.values[name] = value;
    } else {
      out.values[name] = number;
    }
  }
  return out;
}

nlohmann::json measured_values(const claims::Row& row) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& g : row.gates) {
    out[g.name] = {{"value", number_or_null(g.value)}, {"tolerance", number_or_null(g.tolerance)}};
  }
  return out;
}

}  // namespace fedverify::reports
