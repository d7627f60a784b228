// The JSON form of a claim's result between Python and the report writer (fedverify/claims.py):
//   {"rows": [{"setting", "predicted", "measured", "passed", "data",
//              "gates": [[name, value, tolerance], …],
//              "equivalence": null | {"margin", "margin_text", "confirmed", "mde", "tests"}}, …],
//    "note", "breaks_at",
//    "figures": [{"file", "caption", "title", "xlabel", "ylabel", "log_x", "log_y",
//                 "series": [{"title", "x", "y", "style", "err"?}]}]}.
// A Python claim's run returns it (report.cpp turns it back into a ClaimResult), and the claim
// engine of claim_rows.hpp hands its rows to Python in it (fedverify.Claim.run).
#pragma once

#include <nlohmann/json.hpp>

#include "verify/claims/claim.hpp"

namespace fedverify::python {

claims::ClaimResult result_from_json(const nlohmann::json& j, bool figures);
nlohmann::json result_to_json(const claims::ClaimResult& result);

}  // namespace fedverify::python
