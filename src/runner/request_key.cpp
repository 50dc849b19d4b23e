#include "runner/request_key.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <functional>
#include <optional>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "protocol/codec.h"

namespace pecheck {

namespace {

// splitmix64's finaliser: every input bit reaches every output bit.
std::uint64_t mixed(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

class Hasher {
 public:
  void add(std::uint64_t v) { h_ = mixed(h_ ^ v) + 0x9e3779b97f4a7c15ULL; }
  void add(double v) { add(std::bit_cast<std::uint64_t>(v)); }
  // An array: its length and up to kSample values spread over it, the last included.
  template <class T>
  void add_array(const T* data, std::size_t n) {
    add(static_cast<std::uint64_t>(n));
    if (n == 0) return;
    const std::size_t step = std::max<std::size_t>(1, n / kSample);
    for (std::size_t i = 0; i < n; i += step) add_value(data[i]);
    add_value(data[n - 1]);
  }
  void add(const Matrix& m) {
    add(static_cast<std::uint64_t>(m.rows()));
    add_array(m.data(), static_cast<std::size_t>(m.size()));
  }
  void add(const BoolMatrix& m) {
    add(static_cast<std::uint64_t>(m.rows()));
    add_array(m.data(), static_cast<std::size_t>(m.size()));
  }
  void add(const Positions& p) { add_array(p.data(), p.size()); }
  std::size_t value() const { return static_cast<std::size_t>(h_); }

 private:
  static constexpr std::size_t kSample = 8;
  void add_value(double v) { add(v); }
  void add_value(Position p) { add(static_cast<std::uint64_t>(p)); }
  void add_value(bool b) { add(static_cast<std::uint64_t>(b)); }
  std::uint64_t h_ = 0;
};

template <class T>
bool same_bits(const T* a, const T* b, std::size_t n) {
  static_assert(std::is_trivially_copyable_v<T>);
  return n == 0 || std::memcmp(a, b, n * sizeof(T)) == 0;
}

// One argument of a call, by its type: arrays bit for bit, the rest by value.
void add_field(Hasher& h, const Matrix& m) { h.add(m); }
void add_field(Hasher& h, const BoolMatrix& m) { h.add(m); }
void add_field(Hasher& h, const Positions& p) { h.add(p); }
void add_field(Hasher& h, const Vector& v) { h.add_array(v.data(), static_cast<std::size_t>(v.size())); }
void add_field(Hasher& h, const AttentionMask& mask) {
  h.add(static_cast<std::uint64_t>(mask.kind));
  h.add(mask.allowed);
}
void add_field(Hasher& h, const std::string& s) { h.add(static_cast<std::uint64_t>(std::hash<std::string>{}(s))); }
template <class T>
  requires std::is_integral_v<T> || std::is_enum_v<T>
void add_field(Hasher& h, T v) {
  h.add(static_cast<std::uint64_t>(v));
}
template <class T>
void add_field(Hasher& h, const std::optional<T>& v) {
  h.add(static_cast<std::uint64_t>(v.has_value()));
  if (v) add_field(h, *v);
}
template <class T>
void add_field(Hasher& h, const std::vector<T>& items) {
  h.add(static_cast<std::uint64_t>(items.size()));
  for (const T& item : items) add_field(h, item);
}
// A call inside a call (backward's `of`): its own fields.
template <class C>
  requires requires(const C& c) { c.fields(); }
void add_field(Hasher& h, const C& call) {
  std::apply([&](const auto&... field) { (add_field(h, field), ...); }, call.fields());
}
template <class... Cs>
void add_field(Hasher& h, const std::variant<Cs...>& calls) {
  h.add(static_cast<std::uint64_t>(calls.index()));
  std::visit([&](const auto& c) { add_field(h, c); }, calls);
}

bool same(const Matrix& a, const Matrix& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         same_bits(a.data(), b.data(), static_cast<std::size_t>(a.size()));
}
bool same(const BoolMatrix& a, const BoolMatrix& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return false;
  for (Eigen::Index i = 0; i < a.size(); ++i) {
    if (a.data()[i] != b.data()[i]) return false;
  }
  return true;
}
bool same(const Positions& a, const Positions& b) {
  return a.size() == b.size() && same_bits(a.data(), b.data(), a.size());
}
bool same(const AttentionMask& a, const AttentionMask& b) { return a.kind == b.kind && same(a.allowed, b.allowed); }
bool same(const Vector& a, const Vector& b) {
  return a.size() == b.size() && same_bits(a.data(), b.data(), static_cast<std::size_t>(a.size()));
}
bool same(const std::string& a, const std::string& b) { return a == b; }
template <class T>
  requires std::is_integral_v<T> || std::is_enum_v<T>
bool same(T a, T b) {
  return a == b;
}
template <class T>
bool same(const std::optional<T>& a, const std::optional<T>& b) {
  return a.has_value() == b.has_value() && (!a || same(*a, *b));
}
template <class T>
bool same(const std::vector<T>& a, const std::vector<T>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const T& x, const T& y) { return same(x, y); });
}
template <class C>
  requires requires(const C& c) { c.fields(); }
bool same(const C& x, const C& y) {
  return std::apply(
      [&](const auto&... xs) { return std::apply([&](const auto&... ys) { return (same(xs, ys) && ...); }, y.fields()); },
      x.fields());
}
template <class... Cs>
bool same(const std::variant<Cs...>& a, const std::variant<Cs...>& b) {
  if (a.index() != b.index()) return false;
  return std::visit([&](const auto& x) { return same(x, std::get<std::decay_t<decltype(x)>>(b)); }, a);
}

// The numbers one argument carries, by its type: arrays by their entries, the rest none.
// (The templates are declared first: a call inside a call, backward's `of`, finds them all.)
template <class T>
std::int64_t count(const std::optional<T>& v);
template <class T>
std::int64_t count(const std::vector<T>& items);
template <class C>
  requires requires(const C& c) { c.fields(); }
std::int64_t count(const C& call);
template <class... Cs>
std::int64_t count(const std::variant<Cs...>& calls);
std::int64_t count(const Matrix& m) { return static_cast<std::int64_t>(m.size()); }
std::int64_t count(const BoolMatrix& m) { return static_cast<std::int64_t>(m.size()); }
std::int64_t count(const Vector& v) { return static_cast<std::int64_t>(v.size()); }
std::int64_t count(const Positions& p) { return static_cast<std::int64_t>(p.size()); }
std::int64_t count(const AttentionMask& mask) { return count(mask.allowed); }
std::int64_t count(const std::string&) { return 0; }
template <class T>
  requires std::is_integral_v<T> || std::is_enum_v<T>
std::int64_t count(T) {
  return 0;
}
template <class T>
std::int64_t count(const std::optional<T>& v) {
  return v ? count(*v) : 0;
}
template <class T>
std::int64_t count(const std::vector<T>& items) {
  std::int64_t n = 0;
  for (const T& item : items) n += count(item);
  return n;
}
template <class C>
  requires requires(const C& c) { c.fields(); }
std::int64_t count(const C& call) {
  return std::apply([](const auto&... field) { return (std::int64_t{0} + ... + count(field)); }, call.fields());
}
template <class... Cs>
std::int64_t count(const std::variant<Cs...>& calls) {
  return std::visit([](const auto& c) { return count(c); }, calls);
}

// The numbers of the answer a call's codec expects (head tensors: the widest form).
std::int64_t answer_numbers(const ExpectedAnswer& e) {
  using K = ExpectedAnswer::Kind;
  switch (e.kind) {
    case K::matrix:
    case K::batch:
    case K::heads:
      return static_cast<std::int64_t>(e.rows) * static_cast<std::int64_t>(e.cols);
    case K::rows:
      return static_cast<std::int64_t>(e.rows);
    case K::gradients: {
      std::int64_t n = 0;
      for (const auto& a : e.named) n += static_cast<std::int64_t>(a.rows) * static_cast<std::int64_t>(a.cols);
      return n;
    }
    case K::vector:
    case K::null:
      return 0;
  }
  return 0;
}

}  // namespace

std::int64_t numbers_of(const Call& call) {
  return std::visit([](const auto& c) { return count(c) + answer_numbers(c.codec().expected(c, true)); }, call);
}

// Both read each call's arguments from its fields() (calls.h): an op added
// there is hashed and compared with nothing written here.
std::size_t hash_of(const Call& call) {
  Hasher h;
  h.add(static_cast<std::uint64_t>(call.index()));
  std::visit([&](const auto& c) { std::apply([&](const auto&... field) { (add_field(h, field), ...); }, c.fields()); },
             call);
  return h.value();
}

bool same_request(const Call& a, const Call& b) {
  if (a.index() != b.index()) return false;
  return std::visit(
      [&](const auto& x) {
        const auto& y = std::get<std::decay_t<decltype(x)>>(b);
        return std::apply(
            [&](const auto&... xs) {
              return std::apply([&](const auto&... ys) { return (same(xs, ys) && ...); }, y.fields());
            },
            x.fields());
      },
      a);
}

}  // namespace pecheck
