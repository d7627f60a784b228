// The optimiser spec parser (theory/problems/optimiser.hpp): values and defaults, the printed
// form, and every refusal naming the flag and the key.
#include <gtest/gtest.h>

#include <string>

#include "theory/base/input_error.hpp"
#include "theory/problems/optimiser.hpp"

namespace fedverify::theory {
namespace {

TEST(Optimiser, ParsesValuesAndFillsDefaults) {
  const OptimiserSpec s = parse_optimiser("sgd:lr=1.5,nesterov=1", OptimiserRole::server);
  EXPECT_EQ(s.name, "sgd");
  EXPECT_EQ(s.value("lr"), 1.5);
  EXPECT_EQ(s.value("momentum"), 0.0);  // default
  EXPECT_EQ(s.value("nesterov"), 1.0);
  EXPECT_EQ(s.text(), "sgd:lr=1.5,nesterov=1");
  EXPECT_EQ(parse_optimiser("sgd", OptimiserRole::server), default_server());
  EXPECT_EQ(default_server().value("lr"), 1.0);
  const OptimiserSpec p = parse_optimiser("fedprox:mu=0.25", OptimiserRole::client);
  EXPECT_EQ(p.value("mu"), 0.25);
  EXPECT_EQ(parse_optimiser("sgd", OptimiserRole::client), default_client());
}

// Table 2.1 of the thesis (seed 002, "Update rules and initializations"), read off the printed
// table: the defaults a bare name takes. Client rows have no lr (their step is --gamma).
TEST(Optimiser, DefaultsAreTable21s) {
  const OptimiserRole server = OptimiserRole::server;
  const OptimiserSpec adam = parse_optimiser("adam", server);
  EXPECT_EQ(adam.value("lr"), 0.01);
  EXPECT_EQ(adam.value("beta1"), 0.9);
  EXPECT_EQ(adam.value("beta2"), 0.999);
  EXPECT_EQ(adam.value("eps"), 0.1);
  EXPECT_EQ(parse_optimiser("adagrad", server).value("lr"), 0.001);
  EXPECT_EQ(parse_optimiser("adagrad", server).value("eps"), 0.01);
  EXPECT_EQ(parse_optimiser("rmsprop", server).value("rho"), 0.9);
  EXPECT_EQ(parse_optimiser("rmsprop", server).value("eps"), 0.01);
  EXPECT_EQ(parse_optimiser("adadelta", server).value("rho"), 0.7);  // printed as γ = 0.7
  EXPECT_EQ(parse_optimiser("prodigy", server).value("d0"), 1e-4);
  EXPECT_EQ(parse_optimiser("prodigy", server).value("lr"), 0.01);  // λ
  const OptimiserSpec client = parse_optimiser("adam", OptimiserRole::client);
  EXPECT_FALSE(client.has_key("lr"));
  EXPECT_EQ(client.value("eps"), 0.1);
}

// The message of parse_optimiser(text, role), or "" when it is accepted.
std::string refusal(const std::string& text, OptimiserRole role) {
  try {
    parse_optimiser(text, role);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Optimiser, RefusalsNameTheFlagAndTheKey) {
  struct Case {
    const char* text;
    OptimiserRole role;
    const char* names;
  };
  const OptimiserRole server = OptimiserRole::server, client = OptimiserRole::client;
  for (const Case& c : {Case{"lion", server, "lion"},
                        Case{"fedprox:mu=1", server, "fedprox"},
                        Case{"fedexp", client, "fedexp"},
                        Case{"adam:beta1=1", server, "beta1"},
                        Case{"adam:lr=0.1", client, "lr"},
                        Case{"prodigy:d0=0", server, "d0"},
                        Case{"adam:eps_in_sqrt=2", server, "eps_in_sqrt"},
                        Case{"rmsprop:rho=1", client, "rho"},
                        Case{"sgd:foo=1", server, "foo"},
                        Case{"sgd:lr", server, "lr"},
                        Case{"sgd:lr=", server, "lr"},
                        Case{"sgd:lr=0", server, "lr"},
                        Case{"sgd:lr=inf", server, "lr"},
                        Case{"sgd:lr=1x", server, "lr"},
                        Case{"sgd:momentum=1", server, "momentum"},
                        Case{"sgd:momentum=-0.1", server, "momentum"},
                        Case{"sgd:nesterov=0.5", server, "nesterov"},
                        Case{"sgd:lr=1,lr=1", server, "lr"},
                        Case{"sgd:", server, "sgd"},
                        Case{"fedprox", client, "mu"},
                        Case{"fedprox:mu=nan", client, "mu"},
                        Case{"sgd:lr=1", client, "lr"},
                        Case{"", client, "--client"}}) {
    const std::string message = refusal(c.text, c.role);
    const std::string flag(role_flag(c.role));
    EXPECT_EQ(message.rfind(flag + ":", 0), 0u) << c.text << " -> " << message;
    EXPECT_NE(message.find(c.names), std::string::npos) << c.text << " -> " << message;
  }
}

}  // namespace
}  // namespace fedverify::theory
