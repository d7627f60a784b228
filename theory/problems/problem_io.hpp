// Problem files (docs/PROBLEM_FORMATS.md): parse, validate, write.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "theory/problems/problem.hpp"

namespace fedverify::theory {

// Parses a problem object; `source` prefixes every error message (e.g. the file name).
// Throws InputError naming the field, e.g. "p.json: clients[2].hessian[1]: expected 3 numbers".
std::unique_ptr<Problem> parse_problem(const nlohmann::json& j, const std::string& source);

// Reads and parses a problem file. Throws InputError for unreadable files and malformed JSON.
std::unique_ptr<Problem> load_problem(const std::string& path);

// The contents of a text file of at most `max_bytes` bytes; throws InputError "<path>: cannot open
// <what>", "…: cannot read <what>" or "…: larger than N bytes" (reading at most one byte beyond).
std::string read_text_file(const std::string& path, std::int64_t max_bytes, std::string_view what);

// JSON text → document, stricter than nlohmann::json::parse: a key repeated within one object is
// an error (nlohmann would keep the last silently), and every parse failure is an InputError
// prefixed by `source`, e.g. "p.json: number out of range at byte 57: 1e999" or
// "p.json: clients[0].hessian: duplicate key".
nlohmann::json parse_json_text(const std::string& text, const std::string& source);

// The field `name` of `object`; throws InputError "<at><name>: missing" when there is none.
const nlohmann::json& json_member(const nlohmann::json& object, const char* name,
                                  const std::string& at);

// Rejects any key of `object` not in `known`, naming it: "clients[0].hesian: unknown field
// (expected hessian, optimum, noise_cov)". `at` is the prefix of the object's fields
// ("p.json: clients[0]."), as in the other messages.
void require_known_fields(const nlohmann::json& object, std::initializer_list<const char*> known,
                          const std::string& at);
// The same with a list built at run time (e.g. with the preset parameter keys).
void require_known_fields(const nlohmann::json& object, const std::vector<std::string_view>& known,
                          const std::string& at);

// The JSON form of a problem; parse_problem(problem_to_json(p)) reproduces p exactly
// (doubles are written with round-trip precision).
nlohmann::json problem_to_json(const Problem& problem);

// JSON helpers shared by the CLI: vectors as arrays, matrices as arrays of rows.
nlohmann::json to_json(const Vector& v);
nlohmann::json to_json(const Matrix& m);
Vector vector_from_json(const nlohmann::json& j, const std::string& field);
Matrix matrix_from_json(const nlohmann::json& j, const std::string& field);

}  // namespace fedverify::theory
