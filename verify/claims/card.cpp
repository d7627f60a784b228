#include "verify/claims/card.hpp"

#include <fmt/format.h>

#include <array>
#include <stdexcept>

namespace fedverify::claims {
namespace {

struct Field {
  std::string_view name;
  std::string ClaimCard::*member;
  bool required;
};

const std::array<Field, 9> kFields = {{
    {"Summary", &ClaimCard::summary, false},
    {"Statement", &ClaimCard::statement, true},
    {"Formula", &ClaimCard::formula, true},
    {"THEORY", &ClaimCard::theory_label, true},
    {"Setting", &ClaimCard::setting, true},
    {"Decision", &ClaimCard::decision_rule, true},
    {"Sample row", &ClaimCard::sample_row, true},
    {"Notes", &ClaimCard::notes, false},
    {"Margin", &ClaimCard::margin, false},
}};

std::string_view trim_right(std::string_view s) {
  const auto end = s.find_last_not_of(" \t\r");
  return end == std::string_view::npos ? std::string_view{} : s.substr(0, end + 1);
}

std::string_view trim_left(std::string_view s) {
  const auto begin = s.find_first_not_of(" \t");
  return begin == std::string_view::npos ? std::string_view{} : s.substr(begin);
}

// Replaces every `${name}` of `text` by its value; marks the values used.
std::string substitute(std::string_view text, std::string_view field, const CardValues& values,
                       std::vector<bool>& used) {
  std::string out;
  std::size_t at = 0;
  while (true) {
    const auto open = text.find("${", at);
    if (open == std::string_view::npos) break;
    const auto close = text.find('}', open);
    if (close == std::string_view::npos) {
      throw std::invalid_argument("field " + std::string(field) + ": unterminated ${");
    }
    const std::string_view name = text.substr(open + 2, close - open - 2);
    std::size_t i = 0;
    while (i < values.size() && values[i].first != name) ++i;
    if (i == values.size()) {
      throw std::invalid_argument("field " + std::string(field) + ": no value for ${" +
                                  std::string(name) + "}");
    }
    used[i] = true;
    out.append(text.substr(at, open - at)).append(values[i].second.text());
    at = close + 1;
  }
  return out.append(text.substr(at));
}

}  // namespace

CardValue::CardValue(double number) : text_(fmt::format("{}", number)) {}
CardValue::CardValue(int number) : text_(fmt::format("{}", number)) {}

ClaimCard parse_card(std::string_view text, const CardValues& values) {
  ClaimCard card;
  std::array<bool, kFields.size()> seen{};
  std::string* current = nullptr;
  int line_number = 0;
  while (!text.empty()) {
    const auto eol = text.find('\n');
    const std::string_view line = trim_right(text.substr(0, eol));
    text = eol == std::string_view::npos ? std::string_view{} : text.substr(eol + 1);
    ++line_number;
    if (line.empty()) continue;
    if (line.front() == ' ') {  // continues the current field
      if (current == nullptr) {
        throw std::invalid_argument("line " + std::to_string(line_number) +
                                    " is indented but continues no field");
      }
      if (!current->empty()) *current += ' ';
      *current += trim_left(line);
      continue;
    }
    const auto colon = line.find(':');
    const std::string_view name = line.substr(0, colon);
    std::size_t f = 0;
    while (f < kFields.size() && kFields[f].name != name) ++f;
    if (colon == std::string_view::npos || f == kFields.size()) {
      throw std::invalid_argument(
          "line " + std::to_string(line_number) +
          " starts no field (Summary:, Statement:, Formula:, THEORY:, Setting:, "
          "Decision:, Sample row:, Notes:, Margin:): " +
          std::string(line.substr(0, 40)));
    }
    if (seen[f]) throw std::invalid_argument("field " + std::string(name) + " repeated");
    seen[f] = true;
    current = &(card.*kFields[f].member);
    *current = trim_left(line.substr(colon + 1));
  }
  std::vector<bool> used(values.size(), false);
  for (std::size_t f = 0; f < kFields.size(); ++f) {
    std::string& value = card.*kFields[f].member;
    if (kFields[f].required && value.empty()) {
      throw std::invalid_argument("field " + std::string(kFields[f].name) + " is missing or empty");
    }
    value = substitute(value, kFields[f].name, values, used);
  }
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!used[i]) throw std::invalid_argument("value ${" + values[i].first + "} is not used");
  }
  return card;
}

}  // namespace fedverify::claims
