// The batch streams of theory/base/rng.hpp: the addressing contract (normal i and index i do not
// depend on how many are drawn at once, nor on how many chains are drawn together). The normals'
// law and accuracy: normals_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "theory/base/normals.hpp"

namespace fedverify::estimators {
namespace {

// Statement: normal i and index i of a batch stream do not depend on how many are drawn at once
// (the addressing contract that makes chain k independent of K and of the thread count).
// Decision: exact equality of the prefixes.
TEST(Engine, BatchStreamsDoNotDependOnTheBatchSize) {
  const BatchAddress a{99, Purpose::gradient_noise, 5, 3, 17};
  std::vector<double> many(1000), few(37);
  normals_into(a, many.data(), 1000);
  normals_into(a, few.data(), 37);
  EXPECT_TRUE(std::equal(few.begin(), few.end(), many.begin()));
  std::vector<std::uint32_t> more(100), less(10);
  indices_into(a, 50, more.data(), 100);
  indices_into(a, 50, less.data(), 10);
  EXPECT_TRUE(std::equal(less.begin(), less.end(), more.begin()));
}

// Statement: indices_across_chains<8> (one vectorised Philox pass for 8 chains) is the
// lane-interleaved output of indices_into on each chain's own stream, whatever the count.
// Decision: exact equality.
TEST(Engine, IndicesAcrossChainsAreThePerChainStreams) {
  constexpr int kL = 8;
  for (const int n : {1, 4, 10, 16, 17, 45}) {
    const BatchAddress a{77, Purpose::gradient_noise, 1000, 6, 31};
    std::vector<std::uint32_t> lanes(static_cast<std::size_t>(n) * kL), one(n);
    indices_across_chains<kL>(a, 50, lanes.data(), n);
    for (int l = 0; l < kL; ++l) {
      BatchAddress chain = a;
      chain.chain = a.chain + static_cast<std::uint32_t>(l);
      indices_into(chain, 50, one.data(), n);
      for (int i = 0; i < n; ++i) {
        ASSERT_EQ(lanes[static_cast<std::size_t>(i) * kL + l], one[i]) << n << " " << l << " " << i;
      }
    }
  }
}

}  // namespace
}  // namespace fedverify::estimators
