#include "reports/conformance/process_implementation.hpp"

#include <fmt/format.h>

#include <csignal>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "reports/conformance/child_process.hpp"
#include "theory/base/input_error.hpp"
#include "theory/problems/limits.hpp"
#include "theory/problems/problem_io.hpp"

namespace fedverify::reports {
namespace {

// K × d JSON rows → d × K, checked; a non-finite entry (JSON has none: null, as ChildProcess
// reads Python's NaN and Infinity, or a number beyond the doubles) is +∞, which means divergence.
Matrix states(const nlohmann::json& j, int chains, int dim, const std::string& what) {
  const auto bad = [&] {
    return InputError(
        fmt::format("--exec: {}: expected {} rows (chains) of {} numbers", what, chains, dim));
  };
  if (!j.is_array() || static_cast<int>(j.size()) != chains) throw bad();
  Matrix m(dim, chains);
  for (int k = 0; k < chains; ++k) {
    const auto& row = j[k];
    if (!row.is_array() || static_cast<int>(row.size()) != dim) throw bad();
    for (int i = 0; i < dim; ++i) {
      if (row[i].is_number()) {
        m(i, k) = row[i].get<double>();
      } else if (row[i].is_null()) {
        m(i, k) = std::numeric_limits<double>::infinity();
      } else {
        throw bad();
      }
    }
  }
  return m;
}

nlohmann::json rows(const Matrix& m) {  // d × K → K rows
  nlohmann::json out = nlohmann::json::array();
  for (Eigen::Index k = 0; k < m.cols(); ++k) out.push_back(theory::to_json(Vector(m.col(k))));
  return out;
}

// "client": i or [K clients].
std::vector<int> clients_of(const nlohmann::json& c, int chains, int n) {
  const auto bad = [&] {
    return InputError(fmt::format(
        "--exec: grad request client: expected an integer in [0, {}) or {} of them", n, chains));
  };
  std::vector<int> out;
  if (c.is_number_integer()) {
    out.push_back(c.get<int>());
  } else if (c.is_array() && static_cast<int>(c.size()) == chains) {
    for (const auto& ck : c) {
      if (!ck.is_number_integer()) throw bad();
      out.push_back(ck.get<int>());
    }
  } else {
    throw bad();
  }
  return out;
}

std::string exit_status_error(int status) {
  return fmt::format(
      "--exec: the implementation exited with status {}{}", status,
      status == 128 + SIGTERM || status == 128 + SIGKILL
          ? " (terminated: it did not exit within --timeout after its input was closed)"
          : "");
}

void run_process(const std::string& command, double timeout_seconds, ProtocolPipes pipes,
                 ConformanceOracle& oracle) {
  ChildProcess child(command, timeout_seconds, max_line_bytes(oracle.run().chains, oracle.dim()),
                     pipes);
  serve_protocol({[&](const nlohmann::json& m) { child.send(m); }, [&] { return child.receive(); }},
                 oracle);
  const bool diverged = oracle.diverged_round() > 0;
  const int status = child.finish(diverged);  // a diverged run is over whatever the child does
  if (!diverged && status != 0) throw InputError(exit_status_error(status));
}

// Per-model mode's worker (oracle.hpp, ModelWorker): one child process serving one single-chain
// session after another; a chain that diverges ends its process (the run is over whatever it
// does), and the next chain starts a new one.
class ProcessWorker final : public ModelWorker {
 public:
  ProcessWorker(std::string command, double timeout_seconds, ProtocolPipes pipes)
      : command_(std::move(command)), timeout_seconds_(timeout_seconds), pipes_(pipes) {}

  void run(ConformanceOracle& oracle) override {
    const bool reused = child_ != nullptr;
    if (!child_) {
      child_ = std::make_unique<ChildProcess>(command_, timeout_seconds_,
                                              max_line_bytes(1, oracle.dim()), pipes_);
    }
    try {
      serve_protocol(
          {[&](const nlohmann::json& m) { child_->send(m); }, [&] { return child_->receive(); }},
          oracle);
    } catch (const InputError& e) {
      child_.reset();  // terminates the process group
      if (!reused || oracle.rounds_reported() > 0) throw;
      throw InputError(fmt::format(
          "{} (--per-model: after round T of a run the implementation must read the next run "
          "message, or the end of its input, and only then exit)",
          e.what()));
    }
    if (oracle.diverged_round() > 0) {
      child_->finish(true);
      child_.reset();
    }
  }

  void finish() override {
    if (!child_) return;
    const int status = child_->finish(false);
    child_.reset();
    if (status != 0) throw InputError(exit_status_error(status));
  }

 private:
  std::string command_;
  double timeout_seconds_;
  ProtocolPipes pipes_;
  std::unique_ptr<ChildProcess> child_;
};

}  // namespace

void serve_protocol(const ProtocolChannel& channel, ConformanceOracle& oracle) {
  const int d = oracle.dim(), chains = oracle.run().chains;
  channel.send(run_message(oracle.run(), d, oracle.clients()));
  while (!oracle.finished()) {
    const nlohmann::json m = channel.receive();
    const std::string type =
        m.contains("type") && m["type"].is_string() ? m["type"].get<std::string>() : "";
    if (type == "grad") {
      if (!m.contains("client") || !m.contains("x")) {
        throw InputError("--exec: a grad request needs \"client\" and \"x\"");
      }
      const Matrix x = states(m["x"], chains, d, "grad request x");
      const std::vector<int> clients = clients_of(m["client"], chains, oracle.clients());
      if (!x.allFinite()) {  // divergence in the round in progress: the run ends here
        oracle.diverge();
        break;
      }
      channel.send({{"grad", rows(oracle.gradient(clients, x))}});
    } else if (type == "round") {
      if (!m.contains("x")) throw InputError("--exec: a round message needs \"x\"");
      oracle.report(
          states(m["x"], chains, d, fmt::format("round {} x", oracle.rounds_reported() + 1)));
    } else {
      throw InputError(fmt::format("--exec: expected a message of type grad or round, got {}",
                                   theory::limits::quote_input(m.dump())));
    }
  }
}

std::size_t max_line_bytes(int chains, int dim) {
  constexpr std::size_t kNumberBytes = 64, kRowBytes = 16, kFramingBytes = 4096;
  const auto k = static_cast<std::size_t>(chains);
  return kFramingBytes + k * (static_cast<std::size_t>(dim) * kNumberBytes + kRowBytes) +
         k * kNumberBytes;
}

Implementation process_implementation(const std::string& command, double timeout_seconds,
                                      ProtocolPipes pipes) {
  return {"--exec",
          [command, timeout_seconds, pipes](ConformanceOracle& oracle) {
            run_process(command, timeout_seconds, pipes, oracle);
          },
          [command, timeout_seconds, pipes]() -> std::unique_ptr<ModelWorker> {
            return std::make_unique<ProcessWorker>(command, timeout_seconds, pipes);
          }};
}

}  // namespace fedverify::reports
