#include "runner/request_key.h"

#include <type_traits>

#include "pecheck/core/overloaded.h"

namespace pecheck {

namespace {

class KeyWriter {
 public:
  template <class T>
    requires std::is_trivially_copyable_v<T>
  void put(const T& value) {
    key.append(reinterpret_cast<const char*>(&value), sizeof value);
  }
  void put(const Matrix& m) {
    put(m.rows());
    put(m.cols());
    key.append(reinterpret_cast<const char*>(m.data()), sizeof(double) * static_cast<std::size_t>(m.size()));
  }
  void put(const BoolMatrix& m) {
    put(m.rows());
    put(m.cols());
    for (Eigen::Index i = 0; i < m.size(); ++i) key.push_back(m.data()[i] ? '1' : '0');
  }
  void put(const Positions& p) {
    put(p.size());
    key.append(reinterpret_cast<const char*>(p.data()), sizeof(Position) * p.size());
  }
  void put(const std::optional<Position>& p) {
    put(p.has_value());
    if (p) put(*p);
  }
  std::string key;
};

}  // namespace

std::string key_of(const Call& call) {
  KeyWriter w;
  w.put(call.index());
  std::visit(Overloaded{[&](const EncodeCall& c) {
                          w.put(c.dim);
                          w.put(c.positions);
                          w.put(c.seq_len);
                        },
                        [&](const AttentionCall& c) {
                          w.put(c.q);
                          w.put(c.k);
                          w.put(c.v);
                          w.put(c.mask.kind);
                          w.put(c.mask.allowed);
                        },
                        [&](const RotateCall& c) {
                          w.put(c.positions);
                          w.put(c.x);
                          w.put(c.seq_len);
                        },
                        [&](const BiasCall& c) {
                          w.put(c.n);
                          w.put(c.m);
                          w.put(c.head);
                        },
                        [&](const ForwardCall& c) {
                          w.put(c.x.size());
                          for (const Matrix& m : c.x) w.put(m);
                          w.put(c.positions.size());
                          for (const Positions& p : c.positions) w.put(p);
                          w.put(c.padding);
                        },
                        [&](const DecodeCall&) {}, [&](const ResetCall&) {}},
             call);
  return std::move(w.key);
}

}  // namespace pecheck
