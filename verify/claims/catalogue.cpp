// The claim registry: claims register themselves from their own files (register_claim) during
// static initialisation; catalogue() freezes the registrations on first use, sorted by their
// declared report order.
#include <algorithm>
#include <set>
#include <stdexcept>
#include <utility>

#include "verify/claims/claim.hpp"

namespace fedverify::claims {
namespace {

// Construct-on-first-use: registrations from other translation units may run before any
// namespace-scope object of this one is initialised.
std::vector<Claim>& registrations() {
  static std::vector<Claim> claims;
  return claims;
}

}  // namespace

bool register_claim(Claim claim) {
  registrations().push_back(std::move(claim));
  return true;
}

const std::vector<Claim>& catalogue() {
  static const std::vector<Claim> all = [] {
    std::vector<Claim> v = registrations();
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

}  // namespace fedverify::claims
