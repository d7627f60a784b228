// A sweep's tasks spread over ranks (rank_spread.hpp), with the ranks played by threads of this
// process that exchange bytes through shared slots (ThreadRanks below): every rank gets every
// task's value in index order, each task is computed on exactly one rank, and an error on any
// rank reaches every rank. The same code between MPI processes is ctest report.mpi_equality.
#include "reports/report/rank_spread.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <atomic>
#include <barrier>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "theory/base/input_error.hpp"

namespace fedverify::reports {
namespace {

// The exchange shared by the threads that play `size` ranks: gather and broadcast through one
// slot per rank, each collective call fenced by a barrier on both sides.
struct Exchange {
  explicit Exchange(int ranks) : size(ranks), slots(static_cast<std::size_t>(ranks)), meet(ranks) {}
  int size;
  std::vector<std::string> slots;
  std::barrier<> meet;
};

class ThreadRanks final : public Ranks {
 public:
  ThreadRanks(Exchange& exchange, int rank) : exchange_(exchange), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return exchange_.size; }
  int local_size() const override { return exchange_.size; }
  std::vector<std::string> gather(const std::string& bytes) const override {
    exchange_.slots[static_cast<std::size_t>(rank_)] = bytes;
    exchange_.meet.arrive_and_wait();
    std::vector<std::string> all;
    if (root()) all = exchange_.slots;
    exchange_.meet.arrive_and_wait();
    return all;
  }
  std::string broadcast(const std::string& bytes) const override {
    if (root()) exchange_.slots[0] = bytes;
    exchange_.meet.arrive_and_wait();
    std::string out = exchange_.slots[0];
    exchange_.meet.arrive_and_wait();
    return out;
  }

 private:
  Exchange& exchange_;
  int rank_;
};

// Runs `body(spread, rank)` on `size` threads, one per rank.
void on_ranks(int size, const std::function<void(const RankSpread&, int)>& body) {
  Exchange exchange(size);
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) {
    threads.emplace_back([&exchange, &body, r] {
      const ThreadRanks ranks(exchange, r);
      const RankSpread spread(ranks);
      body(spread, r);
    });
  }
  for (auto& t : threads) t.join();
}

TEST(RankSpread, EveryRankGetsEveryValueInIndexOrderEachComputedOnce) {
  for (const int size : {1, 2, 3, 5}) {
    for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{4}, std::size_t{11}}) {
      std::vector<std::atomic<int>> computed(n);
      std::vector<std::vector<nlohmann::json>> got(static_cast<std::size_t>(size));
      on_ranks(size, [&](const RankSpread& spread, int rank) {
        got[static_cast<std::size_t>(rank)] =
            spread.all_values(n, [&](const std::vector<std::size_t>& mine) {
              std::vector<nlohmann::json> v;
              for (const std::size_t i : mine) {
                ++computed[i];
                // A value that records who computed it; −0 keeps its sign.
                v.push_back({{"i", i},
                             {"rank", rank},
                             {"minus_zero", -0.0},
                             {"x", 0.1 * static_cast<double>(i)}});
              }
              return v;
            });
      });
      for (std::size_t i = 0; i < n; ++i) {
        EXPECT_EQ(computed[i].load(), 1) << "task " << i << ", " << size << " ranks";
      }
      for (const auto& values : got) {
        ASSERT_EQ(values.size(), n);
        for (std::size_t i = 0; i < n; ++i) {
          EXPECT_EQ(values[i]["i"].get<std::size_t>(), i);
          EXPECT_EQ(values[i]["rank"].get<int>(), static_cast<int>(i % size));  // interleaved
          EXPECT_TRUE(std::signbit(values[i]["minus_zero"].get<double>()));
          EXPECT_EQ(values[i]["x"].get<double>(), 0.1 * static_cast<double>(i));
        }
        EXPECT_EQ(values, got[0]);
      }
    }
  }
}

// An error on rank 2 of 3 reaches all three ranks, bad input as bad input (exit 2) and anything
// else as an internal error naming the rank; the lowest erring rank's error wins.
TEST(RankSpread, AnErrorOnOneRankIsThrownOnEveryRank) {
  std::vector<std::string> caught(3);
  on_ranks(3, [&](const RankSpread& spread, int rank) {
    try {
      spread.all_values(6, [&](const std::vector<std::size_t>& mine) {
        if (rank == 2) throw InputError("grid.gamma[2]: must be positive");
        return std::vector<nlohmann::json>(mine.size(), 1);
      });
    } catch (const InputError& e) {
      caught[static_cast<std::size_t>(rank)] = std::string("input: ") + e.what();
    }
  });
  for (const auto& c : caught) EXPECT_EQ(c, "input: grid.gamma[2]: must be positive");

  on_ranks(3, [&](const RankSpread& spread, int rank) {
    try {
      spread.all_values(6, [&](const std::vector<std::size_t>& mine) {
        if (rank >= 1) throw std::logic_error(fmt::format("broken on {}", rank));
        return std::vector<nlohmann::json>(mine.size(), 1);
      });
    } catch (const InputError&) {
      caught[static_cast<std::size_t>(rank)] = "wrong type";
    } catch (const std::exception& e) {
      caught[static_cast<std::size_t>(rank)] = e.what();
    }
  });
  for (const auto& c : caught) EXPECT_EQ(c, "rank 1: broken on 1");
}

}  // namespace
}  // namespace fedverify::reports
