// Problem files (DESIGN.md, "Problem files (JSON)"): parse, validate, write.
#pragma once

#include <nlohmann/json.hpp>

#include <memory>
#include <string>

#include "theory/problem.hpp"

namespace fedverify::theory {

// Parses a problem object; `source` prefixes every error message (e.g. the file name).
// Throws InputError naming the field, e.g. "p.json: clients[2].hessian[1]: expected 3 numbers".
std::unique_ptr<Problem> parse_problem(const nlohmann::json& j, const std::string& source);

// Reads and parses a problem file. Throws InputError for unreadable files and malformed JSON.
std::unique_ptr<Problem> load_problem(const std::string& path);

// The JSON form of a problem; parse_problem(problem_to_json(p)) reproduces p exactly
// (doubles are written with round-trip precision).
nlohmann::json problem_to_json(const Problem& problem);

// JSON helpers shared by the CLI: vectors as arrays, matrices as arrays of rows.
nlohmann::json to_json(const Vector& v);
nlohmann::json to_json(const Matrix& m);
Vector vector_from_json(const nlohmann::json& j, const std::string& field);
Matrix matrix_from_json(const nlohmann::json& j, const std::string& field);

}  // namespace fedverify::theory
