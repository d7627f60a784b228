#include "theory/problems/iv_images.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "theory/base/input_error.hpp"
#include "theory/base/rng.hpp"

namespace fedverify::theory {
namespace {

using estimators::Purpose;
using estimators::Stream;

constexpr std::uint64_t kImageRole = 7;  // beside iv_data.cpp's roles
constexpr double kPixelMax = 16.0;       // sklearn's digits: integer pixels 0–16

// 64 × n images of the classes of `values`, each a uniformly random image of its class.
Matrix images_of(const RowVector& values, const std::array<std::vector<int>, 10>& by_class,
                 const ClassificationData& digits, Stream& stream) {
  Matrix out(digits.dim(), values.size());
  for (Eigen::Index j = 0; j < values.size(); ++j) {
    const auto& rows = by_class[static_cast<std::size_t>(image_class(values[j]))];
    const int row = rows[stream.below(rows.size())];
    out.col(j) = digits.features.row(row).transpose() / kPixelMax;
  }
  return out;
}

}  // namespace

std::string to_string(IvImages images) {
  switch (images) {
    case IvImages::none:
      return "low";
    case IvImages::x:
      return "x";
    case IvImages::z:
      return "z";
    case IvImages::xz:
      return "xz";
  }
  return "?";
}

int image_class(double v) {
  return static_cast<int>(std::lround(std::clamp(1.5 * v + 5.0, 0.0, 9.0)));
}

IvData with_images(const IvData& low, IvImages images, IvFunction function, IvProcess process,
                   const ClassificationData& digits, std::uint64_t seed) {
  std::array<std::vector<int>, 10> by_class;
  for (int r = 0; r < digits.samples(); ++r) {
    const int label = digits.labels[static_cast<std::size_t>(r)];
    if (label >= 0 && label < 10) by_class[static_cast<std::size_t>(label)].push_back(r);
  }
  for (int c = 0; c < 10; ++c) {
    if (by_class[static_cast<std::size_t>(c)].empty())
      throw InputError(fmt::format("digits: no image of class {}", c));
  }
  IvData out = low;
  const bool image_x = images == IvImages::x || images == IvImages::xz;
  const bool image_z = images == IvImages::z || images == IvImages::xz;
  std::uint64_t split = 0;
  for (IvSample* s : {&out.train, &out.validation, &out.test}) {
    Stream stream(seed, Purpose::problem_generator, kImageRole, split++);
    if (image_x) {
      const RowVector x = s->data.x.row(0);
      for (Eigen::Index j = 0; j < x.size(); ++j) {
        const double at = (image_class(x[j]) - 5.0) / 1.5;
        s->g0[j] = (true_function(function, process, at) - low.y_mean) / low.y_sd;
      }
      s->data.x = images_of(x, by_class, digits, stream);
    }
    if (image_z) s->data.z = images_of(s->data.z.row(0), by_class, digits, stream);
  }
  return out;
}

}  // namespace fedverify::theory
