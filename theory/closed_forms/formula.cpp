#include "theory/closed_forms/formula.hpp"

#include <fmt/format.h>

#include <Eigen/LU>
#include <Eigen/SVD>

#include <cmath>
#include <utility>

#include "theory/base/input_error.hpp"
#include "theory/closed_forms/formula_parse.hpp"

namespace fedverify::theory {
namespace {

using Kind = FormulaKind;

// The kind of every node, checked once at parse time: evaluation then only computes.
class KindCheck {
 public:
  KindCheck(const Formula& f, const FormulaNames& names, int dim, std::set<std::string>& used)
      : f_(f), names_(names), dim_(dim), used_(used) {}

  Kind of(const FormulaNode& n) {
    switch (n.op) {
      case FormulaOp::number:
        return Kind::scalar;
      case FormulaOp::name:
        used_.insert(n.name);
        return names_.find(n.name)->second;
      case FormulaOp::negate:
        return of(*n.args[0]);
      case FormulaOp::transpose: {
        const Kind a = of(*n.args[0]);
        if (a == Kind::vector) {
          f_.fail(n.position, fmt::format("cannot transpose {}", what(a)),
                  " (vectors are columns: write dot(u, v) for uᵀv, outer(u, v) for uvᵀ)");
        }
        return a;
      }
      case FormulaOp::call:
        return call(n);
      default:
        return binary(n, of(*n.args[0]), of(*n.args[1]));
    }
  }

 private:
  std::string what(Kind k) const { return describe(k, dim_); }

  Kind binary(const FormulaNode& n, Kind a, Kind b) const {
    switch (n.op) {
      case FormulaOp::add:
      case FormulaOp::subtract:
        if (a != b) {
          const bool add = n.op == FormulaOp::add;
          f_.fail(
              n.position,
              add ? fmt::format("cannot add {} and {}", what(a), what(b))
                  : fmt::format("cannot subtract {} from {}", what(b), what(a)),
              (a == Kind::matrix && b == Kind::scalar) || (a == Kind::scalar && b == Kind::matrix)
                  ? " (c*I is c times the identity)"
                  : "");
        }
        return a;
      case FormulaOp::multiply:
        if (a == Kind::scalar) return b;
        if (b == Kind::scalar) return a;
        if (a == Kind::matrix) return b;  // M·v, M·M
        f_.fail(n.position, fmt::format("cannot multiply {} by {}", what(a), what(b)),
                b == Kind::vector ? " (write dot(u, v) or outer(u, v))"
                                  : " (vectors are columns: write M' * v for Mᵀv)");
      case FormulaOp::divide:
        if (b != Kind::scalar) {
          f_.fail(n.position, fmt::format("cannot divide by {}", what(b)),
                  b == Kind::matrix ? " (write inv(M) * …)" : " (/ divides by a scalar)");
        }
        return a;
      default:  // power
        if (a != Kind::scalar) {
          f_.fail(n.position, fmt::format("cannot raise {} to a power", what(a)),
                  " (^ takes scalars: write M * M, inv(M))");
        }
        if (b != Kind::scalar) {
          f_.fail(n.position, fmt::format("the exponent must be a scalar, got {}", what(b)));
        }
        return Kind::scalar;
    }
  }

  Kind call(const FormulaNode& n) {
    std::vector<Kind> k;
    for (const auto& a : n.args) k.push_back(of(*a));
    const auto need = [&](Kind want, const char* as) {
      for (const Kind got : k) {
        if (got != want) {
          f_.fail(n.position, fmt::format("{} takes {}, got {}", n.name, as, what(got)));
        }
      }
    };
    if (n.name == "trace" || n.name == "inv") {
      need(Kind::matrix, "a matrix");
      return n.name == "trace" ? Kind::scalar : Kind::matrix;
    }
    if (n.name == "dot" || n.name == "outer") {
      need(Kind::vector, "two vectors");
      return n.name == "dot" ? Kind::scalar : Kind::matrix;
    }
    if (n.name == "norm2") {
      if (k[0] == Kind::scalar) {
        f_.fail(n.position, "norm2 takes a vector or a matrix, got a scalar", " (write abs(x))");
      }
      return Kind::scalar;
    }
    need(Kind::scalar, "a scalar");  // sqrt, exp, log, abs
    return Kind::scalar;
  }

  const Formula& f_;
  const FormulaNames& names_;
  int dim_;
  std::set<std::string>& used_;
};

FormulaValue scaled(const FormulaValue& v, double s) {
  if (v.kind == Kind::scalar) return FormulaValue::of(v.scalar * s);
  if (v.kind == Kind::vector) return FormulaValue::of(Vector(v.vector * s));
  return FormulaValue::of(Matrix(v.matrix * s));
}

using Lookup = std::function<FormulaValue(const std::string&)>;

FormulaValue evaluate(const FormulaNode& n, const std::map<std::string, FormulaValue>& names) {
  const auto arg = [&](std::size_t i) { return evaluate(*n.args[i], names); };
  switch (n.op) {
    case FormulaOp::number:
      return FormulaValue::of(n.number);
    case FormulaOp::name:
      return names.at(n.name);
    case FormulaOp::negate:
      return scaled(arg(0), -1.0);
    case FormulaOp::transpose: {
      FormulaValue a = arg(0);
      if (a.kind == Kind::matrix) a.matrix.transposeInPlace();
      return a;
    }
    case FormulaOp::add:
    case FormulaOp::subtract: {
      const FormulaValue a = arg(0), b = arg(1);
      const double s = n.op == FormulaOp::add ? 1.0 : -1.0;
      if (a.kind == Kind::scalar) return FormulaValue::of(a.scalar + s * b.scalar);
      if (a.kind == Kind::vector) return FormulaValue::of(Vector(a.vector + s * b.vector));
      return FormulaValue::of(Matrix(a.matrix + s * b.matrix));
    }
    case FormulaOp::multiply: {
      const FormulaValue a = arg(0), b = arg(1);
      if (a.kind == Kind::scalar) return scaled(b, a.scalar);
      if (b.kind == Kind::scalar) return scaled(a, b.scalar);
      if (b.kind == Kind::vector) return FormulaValue::of(Vector(a.matrix * b.vector));
      return FormulaValue::of(Matrix(a.matrix * b.matrix));
    }
    case FormulaOp::divide: {
      const FormulaValue a = arg(0), b = arg(1);
      return scaled(a, 1.0 / b.scalar);
    }
    case FormulaOp::power:
      return FormulaValue::of(std::pow(arg(0).scalar, arg(1).scalar));
    case FormulaOp::call:
      break;
  }
  const FormulaValue a = arg(0);
  if (n.name == "sqrt") return FormulaValue::of(std::sqrt(a.scalar));
  if (n.name == "exp") return FormulaValue::of(std::exp(a.scalar));
  if (n.name == "log") return FormulaValue::of(std::log(a.scalar));
  if (n.name == "abs") return FormulaValue::of(std::abs(a.scalar));
  if (n.name == "trace") return FormulaValue::of(a.matrix.trace());
  if (n.name == "dot") return FormulaValue::of(a.vector.dot(arg(1).vector));
  if (n.name == "outer") return FormulaValue::of(Matrix(a.vector * arg(1).vector.transpose()));
  if (n.name == "norm2") {
    if (a.kind == Kind::vector) return FormulaValue::of(a.vector.norm());
    return FormulaValue::of(Eigen::JacobiSVD<Matrix>(a.matrix).singularValues()(0));
  }
  // inv: a singular matrix gives infinities, refused by the caller's finiteness check.
  const Eigen::FullPivLU<Matrix> lu(a.matrix);
  if (!lu.isInvertible()) {
    return FormulaValue::of(Matrix(Matrix::Constant(a.matrix.rows(), a.matrix.cols(), HUGE_VAL)));
  }
  return FormulaValue::of(Matrix(lu.inverse()));
}

}  // namespace

std::string describe(FormulaKind kind, int dim) {
  switch (kind) {
    case FormulaKind::scalar:
      return "a scalar";
    case FormulaKind::vector:
      return fmt::format("a {}-vector", dim);
    case FormulaKind::matrix:
      break;
  }
  return fmt::format("a {}×{} matrix", dim, dim);
}

Matrix FormulaValue::as_matrix() const {
  if (kind == FormulaKind::scalar) return Matrix::Constant(1, 1, scalar);
  if (kind == FormulaKind::vector) return vector;
  return matrix;
}

bool FormulaValue::finite() const {
  if (kind == FormulaKind::scalar) return std::isfinite(scalar);
  return kind == FormulaKind::vector ? vector.allFinite() : matrix.allFinite();
}

Formula::Formula(std::string text, std::string field, const FormulaNames& names, int dim)
    : text_(std::move(text)), field_(std::move(field)), dim_(dim) {
  root_ = parse_formula(text_, field_, names);
  kind_ = KindCheck(*this, names, dim_, names_).of(*root_);
}

FormulaValue Formula::evaluate(const Lookup& lookup) const {
  std::map<std::string, FormulaValue> values;
  for (const std::string& name : names_) values.emplace(name, lookup(name));
  return theory::evaluate(*root_, values);
}

void Formula::fail(int position, const std::string& what, const std::string& after) const {
  formula_error(field_, text_, position, what, after);
}

}  // namespace fedverify::theory
