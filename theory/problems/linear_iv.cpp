#include "theory/problems/linear_iv.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <Eigen/SVD>
#include <utility>

#include "theory/base/input_error.hpp"
#include "theory/problems/limits.hpp"

namespace fedverify::theory {

FeatureMap parse_feature_map(const std::string& name, const std::string& field) {
  if (name == "linear") return FeatureMap::linear;
  if (name == "affine") return FeatureMap::affine;
  if (name == "quadratic") return FeatureMap::quadratic;
  throw InputError(fmt::format("{}: expected \"linear\", \"affine\" or \"quadratic\", got \"{}\"",
                               field, limits::quote_input(name)));
}

std::string to_string(FeatureMap map) {
  switch (map) {
    case FeatureMap::linear:
      return "linear";
    case FeatureMap::affine:
      return "affine";
    case FeatureMap::quadratic:
      return "quadratic";
  }
  return "?";
}

int feature_dim(FeatureMap map, int input_dim) {
  switch (map) {
    case FeatureMap::linear:
      return input_dim;
    case FeatureMap::affine:
      return 1 + input_dim;
    case FeatureMap::quadratic:
      return 1 + 2 * input_dim;
  }
  return 0;
}

Matrix apply_features(FeatureMap map, const Matrix& samples) {
  const Eigen::Index n = samples.rows(), d = samples.cols();
  Matrix out(n, feature_dim(map, static_cast<int>(d)));
  if (map == FeatureMap::linear) return samples;
  out.col(0).setOnes();
  out.middleCols(1, d) = samples;
  if (map == FeatureMap::quadratic) out.rightCols(d) = samples.array().square().matrix();
  return out;
}

namespace {

void require_shapes(const std::vector<LinearIvClient>& clients) {
  if (clients.empty()) throw InputError("clients: expected at least one client");
  limits::require_range("clients", static_cast<std::int64_t>(clients.size()), 1,
                        limits::kMaxClients, "number of clients; docs/CLI.md, resource limits");
  const Eigen::Index dx = clients[0].x.cols(), dz = clients[0].z.cols();
  for (std::size_t i = 0; i < clients.size(); ++i) {
    const LinearIvClient& c = clients[i];
    const std::string at = fmt::format("clients[{}].", i);
    if (c.y.size() < 1) throw InputError(at + "y: expected at least one sample");
    if (c.x.rows() != c.y.size() || c.z.rows() != c.y.size()) {
      throw InputError(fmt::format("{}{}: {} rows, but y has {}", at,
                                   c.x.rows() != c.y.size() ? "x" : "z",
                                   c.x.rows() != c.y.size() ? c.x.rows() : c.z.rows(), c.y.size()));
    }
    if (c.x.cols() != dx || c.z.cols() != dz || dx < 1 || dz < 1) {
      throw InputError(fmt::format("{}{}: expected {} columns (as clients[0]) and at least one", at,
                                   c.x.cols() != dx || dx < 1 ? "x" : "z",
                                   c.x.cols() != dx || dx < 1 ? dx : dz));
    }
    for (const auto& [name, finite] :
         {std::pair{"x", c.x.allFinite()}, std::pair{"z", c.z.allFinite()},
          std::pair{"y", c.y.allFinite()}}) {
      if (!finite) throw InputError(at + name + ": every entry must be finite");
    }
  }
}

}  // namespace

LinearIvGame::LinearIvGame(std::vector<LinearIvClient> clients, FeatureMap phi, FeatureMap psi,
                           Vector theta_tilde)
    : clients_((require_shapes(clients), std::move(clients))),
      phi_(phi),
      psi_(psi),
      p_(feature_dim(phi, static_cast<int>(clients_[0].x.cols()))),
      q_(feature_dim(psi, static_cast<int>(clients_[0].z.cols()))),
      theta_tilde_(theta_tilde.size() == 0 ? Vector::Zero(p_) : std::move(theta_tilde)),
      game_([this] {
        if (theta_tilde_.size() != p_ || !theta_tilde_.allFinite()) {
          throw InputError(fmt::format("theta_tilde: expected {} finite entries (p), got {}", p_,
                                       theta_tilde_.size()));
        }
        if (q_ < p_) {
          throw InputError(fmt::format(
              "psi: {} instrument features for {} model features: θ is not identified (need q "
              ">= p)",
              q_, p_));
        }
        std::vector<QuadraticGameClient> game_clients;
        for (const LinearIvClient& c : clients_) {
          Moments m;
          m.phi = apply_features(phi_, c.x);
          m.psi = apply_features(psi_, c.z);
          m.weight = (c.y - m.phi * theta_tilde_).array().square().matrix();
          const double n = static_cast<double>(c.y.size());
          m.g = m.psi.transpose() * m.phi / n;
          m.b = m.psi.transpose() * c.y / n;
          m.w = m.psi.transpose() * m.weight.asDiagonal() * m.psi / n;
          m.w = 0.5 * (m.w + m.w.transpose()).eval();  // symmetric to the last bit
          game_clients.push_back({Matrix::Zero(p_, p_), -m.g.transpose(), 0.5 * m.w,
                                  Vector::Zero(p_), -m.b, Matrix::Zero(p_ + q_, p_ + q_)});
          moments_.push_back(std::move(m));
        }
        const Eigen::JacobiSVD<Matrix> svd(mean_g());
        const Vector& sv = svd.singularValues();
        if (!(sv(p_ - 1) > 1e-12 * sv(0))) {
          throw InputError(fmt::format(
              "instruments: the averaged G ({} × {}) is rank deficient (singular values {}), so θ "
              "is not identified",
              q_, p_, fmt::join(sv.data(), sv.data() + sv.size(), ", ")));
        }
        return QuadraticGame(std::move(game_clients));
      }()) {}

Matrix LinearIvGame::mean_g() const {
  Matrix s = Matrix::Zero(q_, p_);
  for (const Moments& m : moments_) s += m.g;
  return s / static_cast<double>(moments_.size());
}

Vector LinearIvGame::mean_b() const {
  Vector s = Vector::Zero(q_);
  for (const Moments& m : moments_) s += m.b;
  return s / static_cast<double>(moments_.size());
}

Matrix LinearIvGame::mean_w() const {
  Matrix s = Matrix::Zero(q_, q_);
  for (const Moments& m : moments_) s += m.w;
  return s / static_cast<double>(moments_.size());
}

}  // namespace fedverify::theory
