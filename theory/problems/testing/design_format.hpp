// Field-by-field checks of the `linear-sa` and `least-squares` problem files against the text of
// docs/problem-formats-linear-sa.md (tests only). Written from that text, not from a parser, so that a
// generator's output can be validated while the readers are written elsewhere:
//   {"kind": "linear-sa", "batch_size": B,
//    "clients": [{"samples": [{"weight": w, "A": [[...],...], "b": [...]}, ...]}, ...]}
//   {"kind": "least-squares", "l2": λ, "batch_size": B,
//    "clients": [{"features": [[...],...], "targets": [...]}, ...]}
// plus, for every kind, an optional client "weight" p_c > 0 and an optional top-level
// "generator" object; no other field. Each check returns "" when the document conforms, else
// the first violation with its JSON path, so a failing test says what is wrong.
#pragma once

#include <cmath>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>

namespace fedverify::verify {

namespace design_detail {

inline std::string unknown_field(const nlohmann::json& object,
                                 std::initializer_list<const char*> allowed,
                                 const std::string& at) {
  for (const auto& [key, value] : object.items()) {
    bool known = false;
    for (const char* a : allowed) known = known || key == a;
    if (!known) return at + "." + key + ": not a field of the format";
  }
  return "";
}

inline bool finite_number(const nlohmann::json& v) {
  return v.is_number() && std::isfinite(v.get<double>());
}

// An array of `size` finite numbers (size < 0: any non-zero size, returned through *size_out).
inline std::string number_array(const nlohmann::json& v, long size, const std::string& at,
                                long* size_out = nullptr) {
  if (!v.is_array() || v.empty()) return at + ": expected a non-empty array of numbers";
  if (size >= 0 && static_cast<long>(v.size()) != size) {
    return at + ": expected " + std::to_string(size) + " numbers, got " + std::to_string(v.size());
  }
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!finite_number(v[i])) return at + "[" + std::to_string(i) + "]: not a finite number";
  }
  if (size_out != nullptr) *size_out = static_cast<long>(v.size());
  return "";
}

inline std::string top_level(const nlohmann::json& j, const char* kind,
                             std::initializer_list<const char*> allowed) {
  if (!j.is_object()) return "problem: not an object";
  if (auto e = unknown_field(j, allowed, "problem"); !e.empty()) return e;
  if (!j.contains("kind") || j["kind"] != kind)
    return std::string("kind: expected \"") + kind + "\"";
  if (!j.contains("batch_size") || !j["batch_size"].is_number_integer() ||
      j["batch_size"].get<long>() < 1) {
    return "batch_size: expected an integer >= 1";
  }
  if (j.contains("generator") && !j["generator"].is_object()) return "generator: not an object";
  if (!j.contains("clients") || !j["clients"].is_array() || j["clients"].empty()) {
    return "clients: expected a non-empty array";
  }
  return "";
}

inline std::string client_weight(const nlohmann::json& client, const std::string& at) {
  if (client.contains("weight") &&
      !(finite_number(client["weight"]) && client["weight"].get<double>() > 0)) {
    return at + ".weight: expected a finite number > 0";
  }
  return "";
}

}  // namespace design_detail

inline std::string linear_sa_format_error(const nlohmann::json& j) {
  using namespace design_detail;
  if (auto e = top_level(j, "linear-sa", {"kind", "batch_size", "clients", "generator"});
      !e.empty()) {
    return e;
  }
  long d = -1;
  for (std::size_t c = 0; c < j["clients"].size(); ++c) {
    const auto& client = j["clients"][c];
    const std::string at = "clients[" + std::to_string(c) + "]";
    if (!client.is_object()) return at + ": not an object";
    if (auto e = unknown_field(client, {"samples", "weight"}, at); !e.empty()) return e;
    if (auto e = client_weight(client, at); !e.empty()) return e;
    if (!client.contains("samples") || !client["samples"].is_array() || client["samples"].empty()) {
      return at + ".samples: expected a non-empty array";
    }
    for (std::size_t k = 0; k < client["samples"].size(); ++k) {
      const auto& sample = client["samples"][k];
      const std::string as = at + ".samples[" + std::to_string(k) + "]";
      if (!sample.is_object()) return as + ": not an object";
      if (auto e = unknown_field(sample, {"weight", "A", "b"}, as); !e.empty()) return e;
      if (!sample.contains("weight") || !finite_number(sample["weight"]) ||
          sample["weight"].get<double>() < 0) {
        return as + ".weight: expected a finite number >= 0";
      }
      if (!sample.contains("A") || !sample["A"].is_array() || sample["A"].empty()) {
        return as + ".A: expected a non-empty array of rows";
      }
      if (d < 0) d = static_cast<long>(sample["A"].size());
      if (static_cast<long>(sample["A"].size()) != d)
        return as + ".A: expected " + std::to_string(d) + " rows";
      for (std::size_t r = 0; r < sample["A"].size(); ++r) {
        if (auto e = number_array(sample["A"][r], d, as + ".A[" + std::to_string(r) + "]");
            !e.empty()) {
          return e;
        }
      }
      if (!sample.contains("b")) return as + ".b: missing";
      if (auto e = number_array(sample["b"], d, as + ".b"); !e.empty()) return e;
    }
  }
  return "";
}

inline std::string least_squares_format_error(const nlohmann::json& j) {
  using namespace design_detail;
  if (auto e = top_level(j, "least-squares", {"kind", "l2", "batch_size", "clients", "generator"});
      !e.empty()) {
    return e;
  }
  if (j.contains("l2") && !(finite_number(j["l2"]) && j["l2"].get<double>() >= 0)) {
    return "l2: expected a finite number >= 0";
  }
  long d = -1;
  for (std::size_t c = 0; c < j["clients"].size(); ++c) {
    const auto& client = j["clients"][c];
    const std::string at = "clients[" + std::to_string(c) + "]";
    if (!client.is_object()) return at + ": not an object";
    if (auto e = unknown_field(client, {"features", "targets", "weight"}, at); !e.empty()) return e;
    if (auto e = client_weight(client, at); !e.empty()) return e;
    if (!client.contains("features") || !client["features"].is_array() ||
        client["features"].empty()) {
      return at + ".features: expected a non-empty array of rows";
    }
    for (std::size_t r = 0; r < client["features"].size(); ++r) {
      long got = 0;
      if (auto e = number_array(client["features"][r], d,
                                at + ".features[" + std::to_string(r) + "]", &got);
          !e.empty()) {
        return e;
      }
      d = got;
    }
    if (!client.contains("targets")) return at + ".targets: missing";
    if (auto e = number_array(client["targets"], static_cast<long>(client["features"].size()),
                              at + ".targets");
        !e.empty()) {
      return e;
    }
  }
  return "";
}

}  // namespace fedverify::verify
