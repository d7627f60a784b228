// "Did you mean": the closest of a list of names to a misspelt one, for the command line's
// subcommands and options (reports/cli/suggest.hpp) and the names of a formula
// (theory/closed_forms/formula.hpp). Header-only: the base layer has no sources.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace fedverify {

// The optimal-string-alignment distance (Levenshtein with adjacent transpositions, each edit
// costing 1): "gama" → "gamma" 1, "repot" → "report" 1, "sedd" → "seed" 1, "tpyo" → "typo" 1.
inline int edit_distance(const std::string& a, const std::string& b) {
  const std::size_t n = a.size(), m = b.size();
  // d[i][j]: distance between the first i characters of a and the first j of b.
  std::vector<std::vector<int>> d(n + 1, std::vector<int>(m + 1, 0));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = static_cast<int>(i);
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = static_cast<int>(j);
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      const int cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);  // adjacent transposition
      }
    }
  }
  return d[n][m];
}

// The candidate closest to `word` when it is close enough to be a slip of the keyboard: distance
// at most 2 and at most a third of the word's length (rounded up), so that "--foo" suggests
// nothing rather than a random option; ties go to the first candidate in the given order.
inline std::optional<std::string> closest_name(const std::string& word,
                                               const std::vector<std::string>& candidates) {
  // Inputs are capped: a word of kilobytes is no slip of the keyboard (and the table is n × m).
  constexpr std::size_t kLongestWord = 64;
  if (word.empty() || word.size() > kLongestWord) return std::nullopt;
  const int limit = std::min(2, static_cast<int>((word.size() + 2) / 3));
  std::optional<std::string> best;
  int best_distance = limit + 1;
  for (const std::string& c : candidates) {
    if (c.size() > kLongestWord) continue;
    const int dist = edit_distance(word, c);
    if (dist < best_distance) {
      best_distance = dist;
      best = c;
    }
  }
  return best;
}

}  // namespace fedverify
