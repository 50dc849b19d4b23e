#include "subjects/plugin/plugin_subject.h"

#include <fmt/format.h>

#include <array>
#include <limits>

#include "pecheck_plugin.h"
#include "subjects/plugin/plugin_library.h"
#include "pecheck/subjects/typed_subject.h"

namespace pecheck {

namespace {

// Plugin calls write a NUL-terminated message of at most this many bytes.
constexpr size_t kErrorSize = 1024;

class PluginSubject : public TypedSubject {
 public:
  PluginSubject(const std::string& path, const SubjectSpec& spec) : library_(path) {
    info_ = library_.declared();
    info_.spec = spec;
  }
  const SubjectInfo& info() const override { return info_; }

  Matrix encode(int dim, const Positions& positions, Position seq_len) override {
    if (!library_.encode) return TypedSubject::encode(dim, positions, seq_len);
    if (dim < 1) throw Refusal(fmt::format("dim must be positive, got {}", dim));
    Matrix out = unwritten(static_cast<Eigen::Index>(positions.size()), dim);
    finish("pecheck_encode", [&](char* error) {
      return library_.encode(dim, positions.data(), positions.size(), seq_len, out.data(), error, kErrorSize);
    }, fmt::format("dim {}, {} position(s), seq_len {}", dim, positions.size(), seq_len));
    return out;
  }

  Matrix rotate(const Positions& positions, const Matrix& x, std::optional<Position> seq_len) override {
    if (!library_.rotate) return TypedSubject::rotate(positions, x, seq_len);
    if (static_cast<Eigen::Index>(positions.size()) != x.rows()) {
      throw std::invalid_argument("rotate: one position per row of x");
    }
    Matrix out = unwritten(x.rows(), x.cols());
    finish("pecheck_rotate", [&](char* error) {
      return library_.rotate(positions.data(), positions.size(), static_cast<int>(x.cols()), x.data(),
                             out.data(), error, kErrorSize);
    }, fmt::format("{} position(s), dim {}", positions.size(), x.cols()));
    return out;
  }

  Matrix rotate_shift(std::optional<int> layer, const Positions& positions, const Matrix& x, Position shift,
                      std::optional<Position> seq_len) override {
    if (!library_.rotate_shift) {
      if (!library_.rotate) return TypedSubject::rotate_shift(layer, positions, x, shift, seq_len);
      throw Refusal(fmt::format("plugin {} exports no pecheck_rotate_shift (PECHECK_OP_ROTATE_SHIFT in its ops): a "
                                "declared context_shift needs it",
                                info_.name));
    }
    // A plugin rotates one rotary: it has no module layers to address.
    if (layer) throw Refusal(fmt::format("a plugin has no layers; asked to shift as layer {}", *layer));
    if (static_cast<Eigen::Index>(positions.size()) != x.rows()) {
      throw std::invalid_argument("rotate: one position per row of x");
    }
    Matrix out = unwritten(x.rows(), x.cols());
    finish("pecheck_rotate_shift", [&](char* error) {
      return library_.rotate_shift(positions.data(), positions.size(), static_cast<int>(x.cols()), shift, x.data(),
                                   out.data(), error, kErrorSize);
    }, fmt::format("{} position(s), dim {}, shift {}", positions.size(), x.cols(), shift));
    return out;
  }

  Matrix rotate_axes(const std::vector<Positions>& axes, const Matrix& x, std::optional<Position> seq_len) override {
    if (!library_.rotate_axes) {
      if (!library_.rotate) return TypedSubject::rotate_axes(axes, x, seq_len);
      throw Refusal(fmt::format("plugin {} exports no pecheck_rotate_axes (PECHECK_OP_ROTATE_AXES in its ops): a "
                                "declared rope_2d or mrope_section needs it",
                                info_.name));
    }
    // axes × n, row-major: each axis's positions in turn.
    Positions flat;
    flat.reserve(axes.size() * static_cast<size_t>(x.rows()));
    for (const Positions& axis : axes) {
      if (static_cast<Eigen::Index>(axis.size()) != x.rows()) {
        throw std::invalid_argument("rotate: one position per row of x on every axis");
      }
      flat.insert(flat.end(), axis.begin(), axis.end());
    }
    Matrix out = unwritten(x.rows(), x.cols());
    finish("pecheck_rotate_axes", [&](char* error) {
      return library_.rotate_axes(flat.data(), axes.size(), static_cast<size_t>(x.rows()), static_cast<int>(x.cols()),
                                  x.data(), out.data(), error, kErrorSize);
    }, fmt::format("{} axes, {} position(s) each, dim {}", axes.size(), x.rows(), x.cols()));
    return out;
  }

  Matrix attention(const Matrix& q, const Matrix& k, const Matrix& v, const AttentionMask& mask,
                   int heads) override {
    if (!library_.attention) return TypedSubject::attention(q, k, v, mask, heads);
    if (heads != 1) throw Refusal(fmt::format("a plugin computes one head; asked for {}", heads));
    int kind = PECHECK_MASK_NONE;
    const bool* allowed = nullptr;
    switch (mask.kind) {
      case AttentionMask::Kind::none: kind = PECHECK_MASK_NONE; break;
      case AttentionMask::Kind::causal: kind = PECHECK_MASK_CAUSAL; break;
      case AttentionMask::Kind::boolean:
        kind = PECHECK_MASK_BOOLEAN;
        if (mask.allowed.rows() != q.rows() || mask.allowed.cols() != k.rows()) {
          throw std::invalid_argument("attention: the mask must be n × m");
        }
        allowed = mask.allowed.data();
        break;
    }
    Matrix out = unwritten(q.rows(), v.cols());
    finish("pecheck_attention", [&](char* error) {
      return library_.attention(q.data(), k.data(), v.data(), static_cast<size_t>(q.rows()),
                                static_cast<size_t>(k.rows()), static_cast<size_t>(q.cols()),
                                static_cast<size_t>(v.cols()), kind, allowed, out.data(), error, kErrorSize);
    }, fmt::format("n {}, m {}, d_k {}, d_v {}", q.rows(), k.rows(), q.cols(), v.cols()));
    return out;
  }

  Batch rotate_backward(const RotateCall& call, const Matrix& grad) override {
    if (!library_.rotate_backward) return TypedSubject::rotate_backward(call, grad);
    if (!call.axes.empty() || call.layer) throw Refusal("a plugin's backward of rotate takes one row of positions");
    if (static_cast<Eigen::Index>(call.positions.size()) != call.x.rows() || grad.rows() != call.x.rows() ||
        grad.cols() != call.x.cols()) {
      throw std::invalid_argument("backward of rotate: one position per row of x, grad of x's shape");
    }
    Matrix dx = unwritten(call.x.rows(), call.x.cols());
    finish("pecheck_rotate_backward", [&](char* error) {
      return library_.rotate_backward(call.positions.data(), call.positions.size(), static_cast<int>(call.x.cols()),
                                      call.x.data(), grad.data(), dx.data(), error, kErrorSize);
    }, fmt::format("{} position(s), dim {}", call.positions.size(), call.x.cols()));
    return {dx};
  }

  Batch attention_backward(const AttentionCall& call, const Matrix& grad) override {
    if (!library_.attention_backward) return TypedSubject::attention_backward(call, grad);
    if (call.heads != 1) throw Refusal(fmt::format("a plugin computes one head; asked for {}", call.heads));
    const auto [kind, allowed] = mask_of(call.mask, call.q.rows(), call.k.rows());
    if (grad.rows() != call.q.rows() || grad.cols() != call.v.cols()) {
      throw std::invalid_argument("backward of attention: grad must be n × d_v");
    }
    Matrix dq = unwritten(call.q.rows(), call.q.cols()), dk = unwritten(call.k.rows(), call.k.cols()),
           dv = unwritten(call.v.rows(), call.v.cols());
    finish("pecheck_attention_backward", [&](char* error) {
      return library_.attention_backward(call.q.data(), call.k.data(), call.v.data(), static_cast<size_t>(call.q.rows()),
                                         static_cast<size_t>(call.k.rows()), static_cast<size_t>(call.q.cols()),
                                         static_cast<size_t>(call.v.cols()), kind, allowed, grad.data(), dq.data(),
                                         dk.data(), dv.data(), error, kErrorSize);
    }, fmt::format("n {}, m {}, d_k {}, d_v {}", call.q.rows(), call.k.rows(), call.q.cols(), call.v.cols()));
    return {dq, dk, dv};
  }

 private:
  // The ABI's mask kind and boolean array for `mask` (n × m).
  static std::pair<int, const bool*> mask_of(const AttentionMask& mask, Eigen::Index n, Eigen::Index m) {
    switch (mask.kind) {
      case AttentionMask::Kind::none: return {PECHECK_MASK_NONE, nullptr};
      case AttentionMask::Kind::causal: return {PECHECK_MASK_CAUSAL, nullptr};
      case AttentionMask::Kind::boolean:
        if (mask.allowed.rows() != n || mask.allowed.cols() != m) {
          throw std::invalid_argument("attention: the mask must be n × m");
        }
        return {PECHECK_MASK_BOOLEAN, mask.allowed.data()};
    }
    return {PECHECK_MASK_NONE, nullptr};
  }

  // NaN-filled, so an element the plugin forgot to write shows up as a
  // violation with a counterexample rather than as stale memory.
  static Matrix unwritten(Eigen::Index rows, Eigen::Index cols) {
    return Matrix::Constant(rows, cols, std::numeric_limits<double>::quiet_NaN());
  }

  template <class Call>
  void finish(const char* function, Call call, const std::string& request) {
    std::array<char, kErrorSize> error{};
    const int status = call(error.data());
    error.back() = '\0';
    if (status == PECHECK_OK) return;
    const std::string message = error[0] != '\0' ? error.data() : "(no message)";
    if (status == PECHECK_REFUSED) throw Refusal(message);
    throw SubjectFailure(fmt::format("plugin {}: {} returned {}: {}", info_.name, function, status, message),
                         fmt::format("{}({})", function, request));
  }

  plugin::Library library_;
  SubjectInfo info_;
};

}  // namespace

SubjectPtr make_plugin_subject(const std::string& path, const SubjectSpec& spec) {
  return std::make_unique<PluginSubject>(path, spec);
}

}  // namespace pecheck
