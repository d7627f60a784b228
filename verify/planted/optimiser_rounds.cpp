#include "verify/planted/optimiser_rounds.hpp"

#include <fmt/format.h>

#include <functional>
#include <utility>

#include "theory/problems/fedopt_setting.hpp"

namespace fedverify::verify::planted {
namespace {

// The registered fedopt round run on a rewritten setting.
class RewrittenFedopt final : public estimators::RoundSampler {
 public:
  using Rewrite = std::function<theory::RunSetting(const theory::RunSetting&, int clients)>;
  explicit RewrittenFedopt(Rewrite rewrite)
      : inner_(estimators::RoundRegistry::get("fedopt")), rewrite_(std::move(rewrite)) {}

  void round(const estimators::RoundBlock& b) const override {
    const theory::RunSetting s = rewrite_(b.step, b.clients);
    const estimators::RoundBlock block{b.dim,     b.clients, b.active,    b.gamma,   b.local_steps,
                                       b.address, b.x,       b.auxiliary, b.sampler, b.kernel,
                                       b.scratch, s,         b.weights};
    inner_->round(block);
  }

  std::vector<estimators::AuxiliaryState> auxiliary_states(
      const estimators::SamplerOptions& options, int clients) const override {
    estimators::SamplerOptions o = options;
    o.step = rewrite_(options.step, clients);
    return inner_->auxiliary_states(o, clients);
  }

 private:
  std::shared_ptr<const estimators::RoundSampler> inner_;
  Rewrite rewrite_;
};

}  // namespace

std::shared_ptr<const estimators::RoundSampler> fedexp_eps_times_clients() {
  return std::make_shared<RewrittenFedopt>([](const theory::RunSetting& s, int clients) {
    if (!s.server.is("fedexp")) return s;
    theory::RunSetting out = s;
    const int sampled = theory::participating_clients(s, clients);
    out.server =
        theory::parse_optimiser(fmt::format("fedexp:eps={}", s.server.value("eps") * sampled),
                                theory::OptimiserRole::server);
    return out;
  });
}

std::shared_ptr<const estimators::RoundSampler> fedexp_without_extrapolation() {
  return std::make_shared<RewrittenFedopt>([](const theory::RunSetting& s, int /*clients*/) {
    theory::RunSetting out = s;
    if (s.server.is("fedexp")) out.server = theory::default_server();
    return out;
  });
}

std::shared_ptr<const estimators::RoundSampler> fedopt_ignoring_participation() {
  return std::make_shared<RewrittenFedopt>([](const theory::RunSetting& s, int /*clients*/) {
    theory::RunSetting out = s;
    out.participating = 0;
    return out;
  });
}

std::shared_ptr<const estimators::RoundSampler> fedopt_replaced_by_scaffold() {
  return estimators::RoundRegistry::get("scaffold");
}

}  // namespace fedverify::verify::planted
