// Blocks of chains: the memory layout shared by the chain engine (chains.cpp), the rounds of the
// algorithms (round.hpp, algorithms/) and the local-step kernels (kernels/).
//
// Chains are advanced in blocks of kLanes = one AVX-512 vector of doubles. Inside a block the
// layout is coordinate-major, element (i, lane) at i·kLanes + lane, so every loop over lanes is
// one SIMD instruction and every chain executes exactly the same instructions whatever block it
// is in. A block is padded with idle lanes (lanes ≥ active), which compute on whatever they hold
// and are never stored back.
//
// Chosen, not measured against alternatives: 8 lanes with 8-row register blocking keeps 8
// independent FMA accumulators, and unlike Eigen's GEMM on d×K panels (whose kernels change the
// summation order with the panel width) it cannot make chain k depend on K.
#pragma once

#include <cstddef>
#include <new>
#include <vector>

#include "theory/base/linalg.hpp"

namespace fedverify::estimators {

inline constexpr int kLanes = 8;

using LaneVector = Eigen::Array<double, kLanes, 1>;

// Lane buffers start on a cache line: a block's row i (kLanes doubles at i·kLanes, 64 bytes) is
// then one aligned AVX-512 vector and never straddles two cache lines, whatever the allocator
// returned for other buffers before.
inline constexpr std::size_t kCacheLine = 64;

template <class T>
struct CacheLineAllocator {
  using value_type = T;
  CacheLineAllocator() = default;
  template <class U>
  explicit CacheLineAllocator(const CacheLineAllocator<U>& /*other*/) {}
  T* allocate(std::size_t n) {
    return static_cast<T*>(::operator new (n * sizeof(T), std::align_val_t{kCacheLine}));
  }
  void deallocate(T* p, std::size_t /*n*/) { ::operator delete (p, std::align_val_t{kCacheLine}); }
  template <class U>
  bool operator==(const CacheLineAllocator<U>& /*other*/) const {
    return true;
  }
};

// Scratch memory in lanes (d × kLanes or more).
using LaneBuffer = std::vector<double, CacheLineAllocator<double>>;

// Grows v to at least n elements (never shrinks: scratch buffers are reused block after block).
template <class Buffer>
void grow(Buffer& v, std::size_t n) {
  if (v.size() < n) v.resize(n);
}

// Columns [first, first + active) of the d×K matrix m into lanes (d × kLanes); idle lanes are 0.
inline void load_lanes(const Matrix& m, int first, int active, double* lanes) {
  const int d = static_cast<int>(m.rows());
  for (int lane = 0; lane < kLanes; ++lane) {
    for (int i = 0; i < d; ++i) lanes[i * kLanes + lane] = lane < active ? m(i, first + lane) : 0.0;
  }
}

// The active lanes back into columns [first, first + active) of m.
inline void store_lanes(const double* lanes, int first, int active, Matrix& m) {
  const int d = static_cast<int>(m.rows());
  for (int lane = 0; lane < active; ++lane) {
    for (int i = 0; i < d; ++i) m(i, first + lane) = lanes[i * kLanes + lane];
  }
}

}  // namespace fedverify::estimators
