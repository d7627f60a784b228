#include "theory/problems/algorithm_parameter.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "theory/base/input_error.hpp"

namespace fedverify::theory {
namespace {

const std::vector<double>& values_of(const RunSetting& setting, std::string_view key) {
  const auto it = setting.parameters.find(key);
  if (it == setting.parameters.end()) {
    throw std::logic_error(
        fmt::format("parameter {}: not in the setting (is it declared in the "
                    "algorithm's descriptor?)",
                    key));
  }
  return it->second;
}

}  // namespace

std::string parameter_range(const AlgorithmParameter& p) {
  std::string out = p.integer ? "an integer" : "a number";
  const bool low = std::isfinite(p.min), high = std::isfinite(p.max);
  if (low && high) {
    out +=
        fmt::format(" in {}{}, {}{}", p.open_min ? '(' : '[', p.min, p.max, p.open_max ? ')' : ']');
  } else if (low) {
    out += fmt::format(" {} {}", p.open_min ? ">" : ">=", p.min);
  } else if (high) {
    out += fmt::format(" {} {}", p.open_max ? "<" : "<=", p.max);
  }
  if (p.per_client) out += " per client (a comma-separated list of N, or one for all)";
  return out;
}

void check_parameter_values(const AlgorithmParameter& p, const std::vector<double>& values,
                            const std::string& field) {
  if (values.empty())
    throw InputError(fmt::format("{}: expected {}, got nothing", field, parameter_range(p)));
  if (!p.per_client && values.size() != 1) {
    throw InputError(
        fmt::format("{}: expected one number, got a list of {}", field, values.size()));
  }
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double v = values[i];
    const std::string at = values.size() > 1 ? fmt::format(" (value {})", i + 1) : "";
    const bool below = v < p.min || (p.open_min && v == p.min);
    const bool above = v > p.max || (p.open_max && v == p.max);
    if (!std::isfinite(v) || below || above || (p.integer && v != std::floor(v))) {
      throw InputError(fmt::format("{}: expected {}, got {}{}", field, parameter_range(p), v, at));
    }
  }
}

std::string parameter_flag(std::string_view key) {
  std::string flag = "--" + std::string(key);
  std::replace(flag.begin(), flag.end(), '_', '-');
  return flag;
}

std::vector<double> per_client_values(const RunSetting& setting, std::string_view key,
                                      int clients) {
  const std::vector<double>& values = values_of(setting, key);
  if (values.size() == 1) return std::vector<double>(static_cast<std::size_t>(clients), values[0]);
  if (values.size() != static_cast<std::size_t>(clients)) {
    throw InputError(fmt::format("{}: expected one value per client ({}) or one for all, got {}",
                                 parameter_flag(key), clients, values.size()));
  }
  return values;
}

double parameter_value(const RunSetting& setting, std::string_view key) {
  const std::vector<double>& values = values_of(setting, key);
  if (values.size() != 1) {
    throw std::logic_error(fmt::format("parameter {}: a list where one value is read", key));
  }
  return values[0];
}

std::optional<double> optional_parameter_value(const RunSetting& setting, std::string_view key) {
  if (!setting.parameters.contains(key)) return std::nullopt;
  return parameter_value(setting, key);
}

}  // namespace fedverify::theory
