// The bits row of claim personalised.compressed-l2gd (card in compressed_l2gd.cpp): [CL2GD]'s
// headline comparison, expected bits to accuracy ε of compressed L2GD, uncompressed L2GD and
// FedAvg, from exact curves on the personalised claims' quadratic.
#pragma once

#include "verify/claims/claim.hpp"
#include "verify/claims/personalised/personalised.hpp"

namespace fedverify::claims::personalised {

// Compressed L2GD (random-1 both ways) and L2GD at λ = 0.1L, p = p*, α best on a grid of ratio √2
// below α_max,Q (α_max), to E‖x^k − x(λ)‖² ≤ ε‖x(λ)‖²; FedAvg (Local GD) to ‖x_t − x*‖² ≤ ε‖x*‖²,
// H and γ best. Adds its figure to `out` and, when FedAvg needs fewer bits at some ε, that ε to
// out.breaks_at. Passes when compressed L2GD needs fewer bits than FedAvg at the largest ε (1e-1).
Row bits_row(const Context& ctx, const CompressedConstants& constants, ClaimResult& out);

}  // namespace fedverify::claims::personalised
