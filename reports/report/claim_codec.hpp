// A claim's result as bytes and back, exactly: how the ranks of a distributed report
// (ranks.hpp) send the results of their claims (and their errors) to rank 0. Every field of
// claims::ClaimResult (rows with their data, gates, equivalence and first attempt; figures with
// their plot data; note, breaks_at, seconds) is kept, every double bit for bit (NaN with its sign,
// ±∞ and −0 included: the bytes are MessagePack, not JSON text, which has no NaN), so rank 0 writes
// the same REPORT.md, results.json and SVGs as a single process. A field added to ClaimResult, Row,
// Figure or PlotSpec is added here too.
#pragma once

#include <nlohmann/json.hpp>

#include <exception>
#include <string>

#include "verify/claims/claim.hpp"

namespace fedverify::reports {

nlohmann::json claim_result_to_json(const claims::ClaimResult& result);
// Throws nlohmann::json::exception when `j` is not what claim_result_to_json wrote.
claims::ClaimResult claim_result_from_json(const nlohmann::json& j);

// JSON as bytes and back, every number exactly (MessagePack: a double that is not exactly a
// float is written as its 8 bytes; CBOR as nlohmann writes it would turn −NaN into NaN).
std::string to_bytes(const nlohmann::json& j);
nlohmann::json from_bytes(const std::string& bytes);

// The exit code of an error: bad input (InputError) 2, anything else (an internal error) 3.
int exit_code_of(const std::exception_ptr& error);
// {"exit": exit_code_of(error), "message": its what()}.
nlohmann::json error_to_json(const std::exception_ptr& error);
// The error of rank `rank` again: an InputError for exit 2 (its message as it was), else a
// runtime_error whose message names the rank when it is not rank 0.
std::exception_ptr error_from_json(const nlohmann::json& error, int rank);

}  // namespace fedverify::reports
