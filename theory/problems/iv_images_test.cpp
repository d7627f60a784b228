// Tests of the image scenarios (THEORY M6): the digit class of a value, and that an image
// variant replaces exactly X and/or Z by images of the right classes, keeps Y, and moves g₀ of an
// image X to the image's class.
#include "theory/problems/iv_images.hpp"

#include <gtest/gtest.h>

#include "theory/base/input_error.hpp"

namespace fedverify::theory {
namespace {

// Ten classes, two images each; image (c, k) has every pixel 16·(c + 1)/11 + k (k = 0, 1 only
// changes the last decimal), so its class is readable from any pixel.
ClassificationData tiny_digits() {
  ClassificationData d;
  d.classes = 10;
  d.features = Matrix(20, 64);
  for (int c = 0; c < 10; ++c) {
    for (int k = 0; k < 2; ++k) {
      d.features.row(2 * c + k).setConstant(16.0 * (c + 1) / 11.0 + 0.01 * k);
      d.labels.push_back(c);
    }
  }
  return d;
}

int class_of(const Vector& image) { return static_cast<int>(std::lround(image(0) * 11.0 - 1.0)); }

TEST(IvImages, DigitClass) {
  EXPECT_EQ(image_class(0.0), 5);
  EXPECT_EQ(image_class(-10.0), 0);
  EXPECT_EQ(image_class(3.0), 9);   // 1.5·3 + 5 = 9.5 → clamped to 9
  EXPECT_EQ(image_class(-1.0), 4);  // 3.5 rounds away from 0
  EXPECT_EQ(image_class(0.4), 6);   // 5.6
}

TEST(IvImages, VariantsReplaceTheRightVariables) {
  IvOptions io;
  io.samples = 200;
  io.seed = 3;
  const IvData low = generate_iv(io);
  const ClassificationData digits = tiny_digits();
  const IvData x = with_images(low, IvImages::x, io.function, io.process, digits, 9);
  ASSERT_EQ(x.train.data.x.rows(), 64);
  EXPECT_EQ(x.train.data.z, low.train.data.z);
  EXPECT_EQ(x.train.data.y, low.train.data.y);
  for (Eigen::Index j = 0; j < x.test.data.x.cols(); ++j) {
    const int c = image_class(low.test.data.x(0, j));
    EXPECT_EQ(class_of(x.test.data.x.col(j)), c);
    EXPECT_DOUBLE_EQ(x.test.g0[j], (std::abs((c - 5.0) / 1.5) - low.y_mean) / low.y_sd);
  }
  const IvData z = with_images(low, IvImages::z, io.function, io.process, digits, 9);
  ASSERT_EQ(z.validation.data.z.rows(), 64);
  EXPECT_EQ(z.validation.data.x, low.validation.data.x);
  EXPECT_EQ(z.validation.g0, low.validation.g0);
  for (Eigen::Index j = 0; j < z.validation.data.z.cols(); ++j)
    EXPECT_EQ(class_of(z.validation.data.z.col(j)), image_class(low.validation.data.z(0, j)));
  const IvData xz = with_images(low, IvImages::xz, io.function, io.process, digits, 9);
  EXPECT_EQ(xz.train.data.x.rows(), 64);
  EXPECT_EQ(xz.train.data.z.rows(), 64);
  EXPECT_EQ(with_images(low, IvImages::xz, io.function, io.process, digits, 9).train.data.x,
            xz.train.data.x);  // a pure function of its inputs
  ClassificationData missing = digits;
  missing.labels[18] = missing.labels[19] = 8;  // no image of class 9
  EXPECT_THROW(with_images(low, IvImages::x, io.function, io.process, missing, 9), InputError);
}

}  // namespace
}  // namespace fedverify::theory
