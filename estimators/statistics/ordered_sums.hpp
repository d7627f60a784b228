// Sums whose order of additions is fixed by the source, not by the vector width.
//
// Same seed ⇒ same bits on every x86-64 CPU (estimators/simulation/same_bits_across_cpus_test.cpp)
// needs every floating-point sum behind a reported number to add its terms in one order whatever
// the instruction set the build targets. Eigen's reductions do not: a row-wise mean of a
// column-major matrix sums the rows that fill a packet by a tree of four columns and the rest
// one column at a time, so which entries take which order depends on the packet width; its
// matrix products (the SYRK of a scatter update, a matrix–vector product) accumulate in register
// blocks shaped by the width. The moments of a `simulate` run built for AVX-512 then differed
// from the same run built for AVX2 in their last bits although both samplers produced the same
// chains.
//
// Every function here adds the terms of each output entry in ascending order of the summed index,
// one rounding per term (a product and its addition are one fused multiply–add where the target
// has one, the same on every width); the loops over independent entries are the ones the compiler
// vectorises, which does not change any entry's order.
#pragma once

#include "theory/base/linalg.hpp"

namespace fedverify::estimators {

// out(i) = Σ_k x(i, k) over the columns k = 0, 1, …, K − 1 in order (out is resized to rows).
void ordered_row_sums(const Matrix& x, Vector& out);

// Lower triangle (i ≥ j) of s += Σ_k c(i, k) c(j, k), each entry's terms added for k = 0, 1, …
// in order; the strict upper triangle of s is not touched.
void add_ordered_lower_products(const Matrix& c, Matrix& s);

// Lower triangle of s += w · v vᵀ, entry (i, j) += (w v_j) v_i; the upper triangle untouched.
void add_ordered_lower_outer(const Vector& v, double w, Matrix& s);

}  // namespace fedverify::estimators
