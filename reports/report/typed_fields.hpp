// The typed forms of a result row's `setting` and `measured` texts, for results.json
// (docs/DESIGN-EXTENSIONS.md, "Results"): what a program reads instead of parsing the report's
// words.
//
// setting_values: the setting text split at its top-level commas (commas inside (), [], {} belong
// to their part); a part "NAME = VALUE" whose VALUE is one number (a Unicode minus −, exponents
// and a trailing % allowed, % divided by 100) becomes NAME → number, any other "NAME = VALUE" NAME
// → VALUE as a string; a part without " = " is a label. E.g. "q-small, fedavg, H = 5, γ = 0.02"
// → labels ["q-small", "fedavg"], values {"H": 5, "γ": 0.02}.
//
// measured_values: every gate of the row (kit::gate: the predicted quantity the baseline
// compares) as NAME → {"value", "tolerance"}, numbers or null when not finite.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "verify/claims/claim.hpp"

namespace fedverify::reports {

struct SettingFields {
  nlohmann::json labels = nlohmann::json::array();   // strings, in order
  nlohmann::json values = nlohmann::json::object();  // name → number or string
};

SettingFields setting_fields(const std::string& setting);

nlohmann::json measured_values(const claims::Row& row);

}  // namespace fedverify::reports
