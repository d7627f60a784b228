// The registered presets (fedprox, fedavgm, fedadam) resolve to fedopt with exactly the optimiser
// specs that the equivalent --server/--client text parses to (so a preset's run is the base
// algorithm's run, number for number), and every bad input names its field.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "theory/base/input_error.hpp"
#include "theory/problems/algorithm_parameter.hpp"
#include "theory/problems/algorithm_preset.hpp"

namespace fedverify::theory {
namespace {

const Algorithm kFedopt{"fedopt"};

ResolvedAlgorithm resolve(const std::string& name, const PresetValues& values,
                          bool server_given = false, bool client_given = false) {
  return resolve_algorithm(name, RunSetting{0.05, 4}, values, server_given, client_given,
                           command_line_fields());
}

// The message of the InputError that `f` throws ("" when it does not throw).
template <typename F>
std::string error_of(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Presets, FedproxIsFedoptWithTheProximalClient) {
  const ResolvedAlgorithm r = resolve("fedprox", {{"mu", {0.3}}});
  EXPECT_EQ(r.algorithm, kFedopt);
  EXPECT_EQ(r.preset, "fedprox");
  EXPECT_EQ(r.step.client, parse_optimiser("fedprox:mu=0.3", OptimiserRole::client));
  EXPECT_EQ(r.step.server, default_server());
  EXPECT_EQ(r.step.gamma, 0.05);
  EXPECT_EQ(r.step.local_steps, 4);
}

TEST(Presets, FedavgmIsFedoptWithServerMomentum) {
  const ResolvedAlgorithm r = resolve("fedavgm", {{"momentum", {0.9}}, {"server_lr", {1.5}}});
  EXPECT_EQ(r.algorithm, kFedopt);
  EXPECT_EQ(r.step.server, parse_optimiser("sgd:momentum=0.9,lr=1.5", OptimiserRole::server));
  EXPECT_EQ(r.step.client, default_client());
  // The server step keeps sgd's default (1) when --server-lr is not given.
  EXPECT_EQ(resolve("fedavgm", {{"momentum", {0.5}}}).step.server.value("lr"), 1.0);
}

TEST(Presets, FedadamTakesTheAdamRowsDefaults) {
  const ResolvedAlgorithm r = resolve("fedadam", {});
  EXPECT_EQ(r.step.server, parse_optimiser("adam", OptimiserRole::server));
  const ResolvedAlgorithm tuned = resolve("fedadam", {{"beta2", {0.99}}, {"eps", {0.001}}});
  EXPECT_EQ(tuned.step.server, parse_optimiser("adam:beta2=0.99,eps=0.001", OptimiserRole::server));
}

TEST(Presets, FedyogiTakesTheYogiRowsDefaults) {
  const ResolvedAlgorithm r = resolve("fedyogi", {});
  EXPECT_EQ(r.algorithm, kFedopt);
  EXPECT_EQ(r.step.server, parse_optimiser("yogi", OptimiserRole::server));
  EXPECT_EQ(r.step.server.value("beta2"), 0.99);  // Reddi et al. 2021's, not Adam's 0.999
  const ResolvedAlgorithm tuned = resolve("fedyogi", {{"server_lr", {0.03}}, {"eps", {1e-4}}});
  EXPECT_EQ(tuned.step.server, parse_optimiser("yogi:lr=0.03,eps=1e-4", OptimiserRole::server));
}

TEST(Presets, ARegisteredAlgorithmResolvesToItselfUnchanged) {
  RunSetting step{0.1, 2};
  step.server = parse_optimiser("adam:lr=0.02", OptimiserRole::server);
  const ResolvedAlgorithm r =
      resolve_algorithm("fedopt", step, {}, true, false, command_line_fields());
  EXPECT_EQ(r.algorithm, kFedopt);
  EXPECT_TRUE(r.preset.empty());
  EXPECT_EQ(r.step.server, step.server);
}

TEST(Presets, BadInputNamesTheField) {
  EXPECT_EQ(error_of([] { resolve("fedprox", {}); }), "--mu: required by --algo fedprox");
  EXPECT_EQ(error_of([] {
              resolve("fedavgm", {{"server_lr", {2.0}}});
            }),
            "--momentum: required by --algo fedavgm");
  EXPECT_NE(error_of([] {
              resolve("fedprox", {{"mu", {-1.0}}});
            }).find("--mu: expected"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              resolve("fedavgm", {{"momentum", {1.0}}});
            }).find("--momentum: expected"),
            std::string::npos);
  EXPECT_EQ(error_of([] {
              resolve("fedavg", {{"mu", {0.1}}});
            }),
            "--mu: only for --algo fedprox, not for --algo fedavg");
  EXPECT_EQ(error_of([] {
              resolve("fedprox", {{"mu", {0.1}}, {"momentum", {0.5}}});
            }),
            "--momentum: only for --algo fedavgm, not for --algo fedprox");
  EXPECT_EQ(error_of([] {
              resolve("fedadam", {{"server_lr", {0.1}}}, true);
            }).rfind("--server: not with --algo fedadam", 0),
            0u);
  EXPECT_EQ(error_of([] {
              resolve("fedprox", {{"mu", {0.1}}}, false, true);
            }).rfind("--client: not with --algo fedprox", 0),
            0u);
  EXPECT_EQ(error_of([] {
              resolve("fedprox", {{"mu", {0.1}}, {"muu", {1.0}}});
            }).rfind("--muu: not a parameter (expected batch_size, beta1, ", 0),
            0u);
  const std::string unknown = error_of([] { resolve("fedsomething", {}); });
  EXPECT_EQ(unknown.rfind("--algo: unknown algorithm \"fedsomething\"", 0), 0u) << unknown;
  EXPECT_NE(unknown.find("fedprox"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("scaffold"), std::string::npos) << unknown;
}

TEST(Presets, TheParameterKeysAreEveryPresetsOnceAndTheirFlagsAreDashed) {
  const std::vector<std::string_view> expected = {"beta1",    "beta2", "eps",
                                                  "momentum", "mu",    "server_lr"};
  EXPECT_EQ(preset_parameter_keys(), expected);
  EXPECT_EQ(parameter_flag("server_lr"), "--server-lr");
  EXPECT_NE(parameter_help("server_lr").find("fedadam, fedavgm and fedyogi"), std::string::npos);
}

TEST(Presets, RegistrationRefusesABadTable) {
  EXPECT_THROW(register_preset({.name = "fedprox", .base = kFedopt}), std::logic_error);
  EXPECT_THROW(register_preset({.name = "bad-key",
                                .base = kFedopt,
                                .client = "fedprox",
                                .parameters = {{.key = "m",
                                                .role = OptimiserRole::client,
                                                .optimiser_key = "momentum"}}}),
               std::logic_error);
  EXPECT_EQ(find_preset("bad-key"), nullptr);
}

}  // namespace
}  // namespace fedverify::theory
