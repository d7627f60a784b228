// The one exception type for bad user input (docs/ARCHITECTURE.md, Conventions).
//
// Its message names the field and the offending value; the CLI prints it as one stderr line
// and exits with code 2.
#pragma once

#include <stdexcept>
#include <string>

namespace fedverify {

class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace fedverify
