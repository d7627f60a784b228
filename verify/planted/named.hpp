// A planted error of one kind with its name: each kind lists its errors once, in a table of
// these, which the tests run one by one and print by name.
#pragma once

#include <string_view>

namespace fedverify::verify::planted {

template <class E>
struct Named {
  E value;
  std::string_view name;
};

}  // namespace fedverify::verify::planted
