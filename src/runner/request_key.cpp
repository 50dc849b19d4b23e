#include "runner/request_key.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "pecheck/core/overloaded.h"

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

}  // namespace

std::size_t hash_of(const Call& call) {
  Hasher h;
  h.add(static_cast<std::uint64_t>(call.index()));
  std::visit(Overloaded{[&](const EncodeCall& c) {
                          h.add(static_cast<std::uint64_t>(c.dim));
                          h.add(c.positions);
                          h.add(static_cast<std::uint64_t>(c.seq_len));
                        },
                        [&](const AttentionCall& c) {
                          h.add(c.q);
                          h.add(c.k);
                          h.add(c.v);
                          h.add(static_cast<std::uint64_t>(c.mask.kind));
                          h.add(c.mask.allowed);
                          h.add(static_cast<std::uint64_t>(c.heads));
                        },
                        [&](const RotateCall& c) {
                          h.add(c.positions);
                          for (const Positions& axis : c.axes) h.add(axis);
                          h.add(c.x);
                          h.add(static_cast<std::uint64_t>(c.seq_len.value_or(-1)));
                          h.add(static_cast<std::uint64_t>(c.layer.value_or(-1)));
                        },
                        [&](const BiasCall& c) {
                          h.add(static_cast<std::uint64_t>(c.n));
                          h.add(static_cast<std::uint64_t>(c.m));
                          h.add(static_cast<std::uint64_t>(c.head));
                        },
                        [&](const ForwardCall& c) {
                          for (const Matrix& m : c.x) h.add(m);
                          for (const Positions& p : c.positions) h.add(p);
                          h.add(c.padding);
                          h.add(static_cast<std::uint64_t>(c.layer.value_or(-1)));
                          for (const Positions& s : c.segments) h.add(s);
                        },
                        [&](const DecodeCall& c) { h.add(static_cast<std::uint64_t>(c.position)); },
                        [&](const ResetCall& c) { h.add(static_cast<std::uint64_t>(c.capacity.value_or(-1))); },
                        [&](const DecodeTokensCall& c) { h.add(c.positions); },
                        [&](const LogitsCall& c) {
                          h.add(c.q);
                          h.add(c.k);
                          h.add(static_cast<std::uint64_t>(c.mask.kind));
                          h.add(c.mask.allowed);
                        },
                        [&](const CombineCall& c) {
                          h.add(static_cast<std::uint64_t>(c.how));
                          h.add(c.a);
                          h.add(c.b);
                        }},
             call);
  return h.value();
}

bool same_request(const Call& a, const Call& b) {
  if (a.index() != b.index()) return false;
  return std::visit(
      Overloaded{[&](const EncodeCall& x) {
                   const auto& y = std::get<EncodeCall>(b);
                   return x.dim == y.dim && same(x.positions, y.positions) && x.seq_len == y.seq_len;
                 },
                 [&](const AttentionCall& x) {
                   const auto& y = std::get<AttentionCall>(b);
                   return same(x.q, y.q) && same(x.k, y.k) && same(x.v, y.v) && same(x.mask, y.mask) &&
                          x.heads == y.heads;
                 },
                 [&](const RotateCall& x) {
                   const auto& y = std::get<RotateCall>(b);
                   return same(x.positions, y.positions) &&
                          std::equal(x.axes.begin(), x.axes.end(), y.axes.begin(), y.axes.end(),
                                     [](const Positions& p, const Positions& q) { return same(p, q); }) &&
                          same(x.x, y.x) && x.seq_len == y.seq_len && x.layer == y.layer;
                 },
                 [&](const BiasCall& x) {
                   const auto& y = std::get<BiasCall>(b);
                   return x.n == y.n && x.m == y.m && x.head == y.head;
                 },
                 [&](const ForwardCall& x) {
                   const auto& y = std::get<ForwardCall>(b);
                   return std::equal(x.x.begin(), x.x.end(), y.x.begin(), y.x.end(),
                                     [](const Matrix& p, const Matrix& q) { return same(p, q); }) &&
                          std::equal(x.positions.begin(), x.positions.end(), y.positions.begin(), y.positions.end(),
                                     [](const Positions& p, const Positions& q) { return same(p, q); }) &&
                          same(x.padding, y.padding) && x.layer == y.layer &&
                          std::equal(x.segments.begin(), x.segments.end(), y.segments.begin(), y.segments.end(),
                                     [](const Positions& p, const Positions& q) { return same(p, q); });
                 },
                 [&](const DecodeCall& x) {
                   const auto& y = std::get<DecodeCall>(b);
                   return x.session == y.session && same(x.x, y.x) && x.position == y.position;
                 },
                 [&](const ResetCall& x) {
                   const auto& y = std::get<ResetCall>(b);
                   return x.session == y.session && x.capacity == y.capacity;
                 },
                 [&](const DecodeTokensCall& x) {
                   const auto& y = std::get<DecodeTokensCall>(b);
                   return x.session == y.session && same(x.x, y.x) && same(x.positions, y.positions);
                 },
                 [&](const LogitsCall& x) {
                   const auto& y = std::get<LogitsCall>(b);
                   return same(x.q, y.q) && same(x.k, y.k) && same(x.mask, y.mask);
                 },
                 [&](const CombineCall& x) {
                   const auto& y = std::get<CombineCall>(b);
                   return x.how == y.how && same(x.a, y.a) && same(x.b, y.b);
                 }},
      a);
}

}  // namespace pecheck
