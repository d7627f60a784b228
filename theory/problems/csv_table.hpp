// Delimited text tables, read line by line: the non-blank lines of a file split into fields (a
// field may be double-quoted, "" inside quotes a literal quote), each with its 1-based line
// number, and strict number parsing. Shared by load_csv_table (logistic_data.hpp: a labelled
// table for the research catalogue) and the CSV importer (csv_problem.hpp: `fedverify problem
// from-csv`), so both read the same files the same way.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fedverify::theory {

struct CsvLine {
  int number;  // 1-based line number in the file
  std::vector<std::string> fields;
};

// The file's non-blank lines (a trailing '\r' and a leading UTF-8 byte-order mark dropped, blanks
// and tabs around unquoted fields trimmed), split at `delimiter`. Throws InputError "PATH: cannot open file",
// "PATH: line L, column C: malformed quoted field" or "PATH: the file holds no rows".
std::vector<CsvLine> read_csv_lines(const std::string& path, char delimiter);

// A decimal number with optional sign and exponent, the whole field (blanks around it
// allowed); nullopt otherwise. "nan" and "inf" parse (as NaN and ±∞): callers that need finite
// numbers check std::isfinite and say so.
std::optional<double> parse_csv_number(std::string_view field);

}  // namespace fedverify::theory
