// The claim registry: claims register themselves from their own files (register_claim) during
// static initialisation; catalogue() freezes the registrations on first use, sorted by their
// declared report order, and parses their cards.
#include <algorithm>
#include <chrono>
#include <set>
#include <stdexcept>
#include <utility>

#include "verify/claims/claim.hpp"

namespace fedverify::claims {
namespace {

// `run`, timed: the wall time of every claim is measured here, once.
ClaimRun timed(ClaimRun run) {
  return [run = std::move(run)](const Context& ctx) {
    const auto t0 = std::chrono::steady_clock::now();
    ClaimResult result = run(ctx);
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return result;
  };
}

// Construct-on-first-use: registrations from other translation units may run before any
// namespace-scope object of this one is initialised.
std::vector<ClaimRegistration>& registrations() {
  static std::vector<ClaimRegistration> claims;
  return claims;
}

}  // namespace

std::string_view section_title(Section section) {
  switch (section) {
    case Section::quadratic_exact:
      return "Quadratic problems: exact stationary moments";
    case Section::quadratic_simulation:
      return "Quadratic problems: simulation against exact moments";
    case Section::dynamics:
      return "Dynamics: speed-up, bound shape, contraction";
    case Section::logistic:
      return "Logistic regression: stationary bias";
    case Section::linear_sa:
      return "Linear stochastic approximation: federated TD and least squares (exact)";
    case Section::heterogeneity:
      return "Heterogeneity: the average drift and the bias";
    case Section::personalised:
      return "Personalised FL: L2GD";
    case Section::maps:
      return "Validity maps: where the theorems break (exact, quadratics)";
    case Section::optimisers:
      return "Client and server optimisers, client sampling";
    case Section::optimiser_study:
      return "Optimiser study on convex proxies (Table 2.2, simulated; opt-in)";
    case Section::games:
      return "Federated minimax: FedGDA on quadratic games";
    case Section::deepgmm_study:
      return "Federated IV: DeepGMM and FedDeepGMM, Table 3.1 low-dimensional rows (opt-in)";
  }
  throw std::logic_error("unknown report section");
}

bool register_claim(ClaimRegistration registration) {
  registrations().push_back(std::move(registration));
  return true;
}

const std::vector<Claim>& catalogue() {
  static const std::vector<Claim> all = [] {
    std::vector<Claim> v;
    for (const auto& r : registrations()) {
      Claim c{.order = r.order,
              .id = r.id,
              .family = std::string(section_title(r.order.section)),
              .card = {},
              .alpha = r.alpha,
              .opt_in = r.opt_in,
              .hypothesis = r.hypothesis,
              .shared_run = r.shared_run,
              .sweep = r.sweep,
              .run = timed(r.run)};
      try {
        c.card = parse_card(r.card, r.values);
      } catch (const std::invalid_argument& e) {
        throw std::logic_error("claim " + r.id + ": card: " + e.what());
      }
      v.push_back(std::move(c));
    }
    std::sort(v.begin(), v.end(), [](const Claim& a, const Claim& b) { return a.order < b.order; });
    std::set<std::string> ids;
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (!ids.insert(v[i].id).second) throw std::logic_error("claim registered twice: " + v[i].id);
      if (i > 0 && v[i].order == v[i - 1].order) {
        throw std::logic_error("claims " + v[i - 1].id + " and " + v[i].id +
                               " declare the same report order");
      }
    }
    return v;
  }();
  return all;
}

const Claim& claim_by_id(std::string_view id) {
  for (const Claim& c : catalogue()) {
    if (c.id == id) return c;
  }
  throw std::logic_error("no claim " + std::string(id));
}

}  // namespace fedverify::claims
