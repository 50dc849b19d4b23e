#include "runner/preview_recorder.h"

namespace pecheck {

template <class T>
T PreviewRecorder::answer(Op op, Call call) {
  if (!info_.supports(op)) throw Refusal("not declared");
  const std::size_t hash = hash_of(call);
  if (next_ < answered_.size() && answered_[next_].first->hash == hash &&
      same_request(answered_[next_].first->call, call)) {
    const Answer& a = answered_[next_++].second;
    if (const auto* refused = std::get_if<Refused>(&a)) throw Refusal(refused->reason);
    return std::get<T>(a);
  }
  throw Pending{std::move(call), hash};
}

Matrix PreviewRecorder::encode(int dim, const Positions& positions, Position seq_len) {
  return answer<Matrix>(Op::encode, EncodeCall{dim, positions, seq_len});
}

Matrix PreviewRecorder::attention(const Matrix& q, const Matrix& k, const Matrix& v, const AttentionMask& mask,
                                  int heads) {
  if (heads != info_.attention.query_heads()) throw Refusal("the protocol carries the declared heads");
  return answer<Matrix>(Op::attention, AttentionCall{q, k, v, mask, heads});
}

Matrix PreviewRecorder::rotate(const Positions& positions, const Matrix& x, std::optional<Position> seq_len) {
  return answer<Matrix>(Op::rotate, RotateCall{positions, x, seq_len});
}

Matrix PreviewRecorder::rotate_axes(const std::vector<Positions>& positions, const Matrix& x,
                                    std::optional<Position> seq_len) {
  RotateCall call{{}, x, seq_len};
  call.axes = positions;
  return answer<Matrix>(Op::rotate, std::move(call));
}

Matrix PreviewRecorder::rotate_layer(int layer, const Positions& positions, const Matrix& x,
                                     std::optional<Position> seq_len) {
  RotateCall call{positions, x, seq_len};
  call.layer = layer;
  return answer<Matrix>(Op::rotate, std::move(call));
}

Matrix PreviewRecorder::bias(int n, int m, int head) { return answer<Matrix>(Op::bias, BiasCall{n, m, head}); }

Batch PreviewRecorder::forward(const Batch& x, const std::vector<Positions>& positions, const BoolMatrix& padding) {
  return answer<Batch>(Op::forward, ForwardCall{x, positions, padding});
}

Batch PreviewRecorder::forward_layer(int layer, const Batch& x, const std::vector<Positions>& positions,
                                     const BoolMatrix& padding) {
  ForwardCall call{x, positions, padding};
  call.layer = layer;
  return answer<Batch>(Op::forward, std::move(call));
}

Vector PreviewRecorder::decode(const std::string&, const Vector&, Position) { throw Stateful{}; }

void PreviewRecorder::reset(const std::string&) { throw Stateful{}; }

Batch PreviewRecorder::forward_packed(const Batch& x, const std::vector<Positions>& positions,
                                      const BoolMatrix& padding, const std::vector<Positions>& segments) {
  return answer<Batch>(Op::forward, ForwardCall{.x = x, .positions = positions, .padding = padding, .segments = segments});
}

Matrix PreviewRecorder::decode_tokens(const std::string&, const Matrix&, const Positions&) { throw Stateful{}; }

void PreviewRecorder::reset_with_capacity(const std::string&, Position) { throw Stateful{}; }

}  // namespace pecheck
