// Sweep tasks (kit/tasks.hpp, kit/task_values.hpp): the JSON trip of their values keeps every
// field and every double bit for bit, and spread_tasks returns the values in index order,
// spreads only its outermost level, and gives the same values for any spread of the tasks.
#include "verify/claims/kit/task_values.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "verify/claims/kit/tasks.hpp"

namespace fedverify::claims {
namespace {

bool same_bits(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

template <class M>
void expect_same_bits(const M& a, const M& b, const char* what) {
  ASSERT_EQ(a.rows(), b.rows()) << what;
  ASSERT_EQ(a.cols(), b.cols()) << what;
  for (Eigen::Index i = 0; i < a.size(); ++i) {
    EXPECT_TRUE(same_bits(a.data()[i], b.data()[i])) << what << "[" << i << "]";
  }
}

// Every field set to a value no default has, doubles including −0, ±∞, a NaN and a subnormal.
TEST(TaskValues, MomentEstimateKeepsEveryFieldBitForBit) {
  estimators::MomentEstimate m;
  m.mean = Vector::LinSpaced(3, -1.0, 1.0 / 3.0);
  m.mean_cov = Matrix::Random(3, 3);
  m.mean_cov(0, 1) = -0.0;
  m.mean_mcse = Vector::Constant(3, std::numeric_limits<double>::denorm_min());
  m.cov = Matrix::Random(3, 2);  // not square: the shape travels too
  m.ess = Vector::Constant(2, std::numeric_limits<double>::infinity());
  m.rhat = Vector::Constant(2, -std::numeric_limits<double>::quiet_NaN());
  m.samples = 123456789012LL;
  m.chains = 17;
  m.rounds = 2001;
  m.batches_per_chain = 9;
  m.batch_rounds = 222;
  m.cov_mcse = Matrix(0, 0);
  const nlohmann::json j = m;
  const auto back = j.get<estimators::MomentEstimate>();
  expect_same_bits(back.mean, m.mean, "mean");
  expect_same_bits(back.mean_cov, m.mean_cov, "mean_cov");
  expect_same_bits(back.mean_mcse, m.mean_mcse, "mean_mcse");
  expect_same_bits(back.cov, m.cov, "cov");
  expect_same_bits(back.ess, m.ess, "ess");
  expect_same_bits(back.rhat, m.rhat, "rhat");
  expect_same_bits(back.cov_mcse, m.cov_mcse, "cov_mcse");
  EXPECT_EQ(back.samples, m.samples);
  EXPECT_EQ(back.chains, m.chains);
  EXPECT_EQ(back.rounds, m.rounds);
  EXPECT_EQ(back.batches_per_chain, m.batches_per_chain);
  EXPECT_EQ(back.batch_rounds, m.batch_rounds);
}

TEST(TaskValues, AMatrixWhoseShapeDoesNotMatchItsEntriesIsRefused) {
  nlohmann::json j = Matrix(Matrix::Ones(2, 2));
  j["rows"] = 3;
  EXPECT_THROW(j.get<Matrix>(), nlohmann::json::exception);
}

// A spread over `parts` simulated processes (task k on part k mod parts), counting its calls.
class PartsSpread final : public TaskSpread {
 public:
  explicit PartsSpread(std::size_t parts) : parts_(parts) {}
  std::vector<nlohmann::json> all_values(std::size_t n, const Compute& compute) const override {
    ++calls_;
    std::vector<nlohmann::json> all(n);
    for (std::size_t p = 0; p < parts_; ++p) {
      std::vector<std::size_t> mine;
      for (std::size_t i = p; i < n; i += parts_) mine.push_back(i);
      const auto values = compute(mine);
      for (std::size_t k = 0; k < mine.size(); ++k) all[mine[k]] = values[k];
    }
    return all;
  }
  int calls() const { return calls_; }

 private:
  std::size_t parts_;
  mutable int calls_ = 0;
};

// A task value with a vector, a double that is not a float and an integer.
struct Value {
  Vector v;
  double x = 0;
  int i = 0;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Value, v, x, i)

Value task_value(std::size_t i) {
  return {Vector::Constant(2, std::sqrt(static_cast<double>(i))), 0.1 * static_cast<double>(i),
          static_cast<int>(i)};
}

std::vector<Value> values_with(const Context& ctx, std::size_t n) {
  return kit::spread_tasks<Value>(ctx, n, task_value);
}

TEST(SpreadTasks, ValuesInIndexOrderWhateverTheSpreadAndThreads) {
  for (const int threads : {1, 2, 3}) {
    Context alone;
    alone.options.threads = threads;
    const std::vector<Value> reference = values_with(alone, 13);
    ASSERT_EQ(reference.size(), 13U);
    for (std::size_t parts : {1U, 2U, 5U, 20U}) {
      const PartsSpread spread(parts);
      Context ctx = alone;
      ctx.spread = &spread;
      const std::vector<Value> got = values_with(ctx, 13);
      EXPECT_EQ(spread.calls(), 1);
      ASSERT_EQ(got.size(), 13U);
      for (std::size_t i = 0; i < got.size(); ++i) {
        const Value expected = task_value(i);  // constructed, not read from the run above
        EXPECT_EQ(got[i].i, expected.i);
        EXPECT_TRUE(same_bits(got[i].x, expected.x));
        expect_same_bits(got[i].v, expected.v, "v");
        EXPECT_EQ(got[i].i, reference[i].i);
      }
    }
  }
  Context ctx;
  EXPECT_TRUE(values_with(ctx, 0).empty());
}

// Only the outermost spread_tasks is spread: one inside a task runs all its tasks there (a
// collective call from a task, which runs on one process only, would wait forever).
TEST(SpreadTasks, ASpreadInsideATaskRunsLocally) {
  const PartsSpread spread(2);
  Context ctx;
  ctx.spread = &spread;
  ctx.options.threads = 2;
  const auto sums = kit::spread_tasks<double>(ctx, 4, [&](std::size_t i) {
    double s = 0;
    for (const Value& v : values_with(ctx, i + 1)) s += v.x;
    return s;
  });
  EXPECT_EQ(spread.calls(), 1);
  for (std::size_t i = 0; i < sums.size(); ++i) {
    double expected = 0;
    for (std::size_t k = 0; k <= i; ++k) expected += 0.1 * static_cast<double>(k);
    EXPECT_EQ(sums[i], expected);
  }
}

TEST(SpreadTasks, ATaskErrorIsRethrown) {
  Context ctx;
  ctx.options.threads = 2;
  EXPECT_THROW(kit::spread_tasks<int>(ctx, 5,
                                      [](std::size_t i) -> int {
                                        if (i == 3) throw std::runtime_error("task 3");
                                        return 1;
                                      }),
               std::runtime_error);
}

}  // namespace
}  // namespace fedverify::claims
