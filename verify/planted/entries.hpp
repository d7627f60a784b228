// The planted errors of one kind as a table, one entry per error ({key, name, description, …}):
// one place says what an error is called and what it does (formula_errors.cpp, scaffold_bugs.cpp,
// fedavg_bugs.cpp).
#pragma once

#include <array>
#include <cstddef>
#include <stdexcept>
#include <vector>

namespace fedverify::verify::planted {

// The keys of the table, in table order.
template <class Entry, std::size_t N>
std::vector<decltype(Entry::key)> keys_of(const std::array<Entry, N>& table) {
  std::vector<decltype(Entry::key)> out;
  out.reserve(N);
  for (const Entry& e : table) out.push_back(e.key);
  return out;
}

// The entry of `key`; throws std::logic_error when the table lacks it (a new enumerator without
// its entry).
template <class Entry, std::size_t N>
const Entry& entry_of(const std::array<Entry, N>& table, decltype(Entry::key) key) {
  for (const Entry& e : table) {
    if (e.key == key) return e;
  }
  throw std::logic_error("planted: an error without its table entry");
}

}  // namespace fedverify::verify::planted
