// The requests history_independence draws (history_run.h: RequestGens).
#include <algorithm>

#include "history_run.h"
#include "pecheck/gen/matrix.h"

namespace pecheck::history {

namespace {

constexpr double kRange = 2.0;  // entries of x, q, k, v uniform in [−2, 2]
// Where caches and precisions change: dynamic NTK's original length in the
// built-ins (16), bfloat16's last exact integer (256), Llama's cache (2048).
constexpr Position kEdges[] = {15, 16, 17, 255, 256, 257, 2047, 2048, 2049, 4095, 4096, 4097};
const std::vector<std::string> kSessions = {"a", "b"};

template <class T>
rc::Gen<std::vector<T>> some(int lo, int hi, rc::Gen<T> item) {
  return rc::gen::mapcat(rc::gen::inRange(lo, hi + 1),
                         [item](int count) { return rc::gen::container<std::vector<T>>(static_cast<size_t>(count), item); });
}

// One of several generators, chosen by weight (rc::gen::weightedOneOf takes
// only a fixed list); shrinks toward the first choice.
template <class T>
rc::Gen<T> weighted(std::vector<std::pair<int, rc::Gen<T>>> choices) {
  int total = 0;
  for (const auto& choice : choices) total += choice.first;
  return rc::gen::mapcat(rc::gen::inRange(0, total), [choices](int pick) {
    for (const auto& [weight, gen] : choices) {
      if (pick < weight) return gen;
      pick -= weight;
    }
    return choices.back().second;
  });
}

Position largest(const Positions& p) { return p.empty() ? 0 : *std::max_element(p.begin(), p.end()); }

}  // namespace

RequestGens::RequestGens(const GenContext& ctx) : info_(ctx.subject), max_position_(std::max<Position>(0, ctx.max_position)) {}

rc::Gen<Position> RequestGens::position() const {
  const Position max = max_position_;
  std::vector<Position> edges;
  for (Position t : kEdges) {
    if (t <= max) edges.push_back(t);
  }
  std::vector<std::pair<int, rc::Gen<Position>>> choices = {
      {3, rc::gen::inRange<Position>(0, std::min<Position>(max, 31) + 1)},
      {2, rc::gen::inRange<Position>(0, std::min<Position>(max, 300) + 1)},
      {2, rc::gen::inRange<Position>(0, max + 1)}};
  if (!edges.empty()) choices.push_back({1, rc::gen::elementOf(edges)});
  return weighted(choices);
}

rc::Gen<Positions> RequestGens::positions() const { return some<Position>(1, 3, position()); }

rc::Gen<Call> RequestGens::encode() const {
  return rc::gen::apply(
      [](int dim, Positions at, Position length) -> Call {
        const Position seq_len = std::max(length, largest(at)) + 1;
        return EncodeCall{dim, std::move(at), seq_len};
      },
      rc::gen::elementOf(std::vector<int>{4, 8, 16}), positions(), position());
}

rc::Gen<Call> RequestGens::rotate() const {
  std::vector<int> widths = {2, 4, 8, 16};
  if (info_.rotate.rotary_dim) widths = {*info_.rotate.rotary_dim, 2 * *info_.rotate.rotary_dim};
  // Per-pair lists (LongRoPE's factors, freq_factors, mrope sections) fix the rotated width.
  if (const int pairs = info_.rotate.fixed_pairs(); pairs > 0 && !info_.rotate.rotary_dim) widths = {2 * pairs};
  // A length-dependent rotary gets its sequence length with every request
  // (SUBJECT-PROTOCOL v2 clarifications); others now and then.
  const bool always = info_.rotate.length_dependent();
  // Multi-axis positions: text (every axis at the same position) or an
  // image's (h and w drawn apart), so state kept from one kind of request
  // can meet the other.
  const size_t axes = info_.rotate.multi_axis() ? info_.rotate.mrope_section.size() : 0;
  return rc::gen::mapcat(rc::gen::pair(rc::gen::elementOf(widths), positions()), [*this, always, axes](auto shape) {
    const auto [width, at] = shape;
    const auto n = at.size();
    return rc::gen::apply(
        [at = at, axes](Matrix x, Position length, bool with_length, bool image, std::vector<Position> others) -> Call {
          std::optional<Position> seq_len;
          Position last = largest(at);
          RotateCall call{at, std::move(x), seq_len};
          if (axes > 0) {
            call.axes.assign(axes, at);
            if (image) {
              for (size_t a = 1; a < axes; ++a) {
                std::copy_n(others.begin() + static_cast<std::ptrdiff_t>((a - 1) * at.size()), at.size(),
                            call.axes[a].begin());
                last = std::max(last, largest(call.axes[a]));
              }
            }
            call.positions.clear();
          }
          if (with_length) call.seq_len = std::max(length, last) + 1;
          return call;
        },
        gen::matrix(static_cast<Eigen::Index>(n), width, -kRange, kRange), position(),
        always ? rc::gen::just(true) : rc::gen::arbitrary<bool>(),
        axes > 0 ? rc::gen::arbitrary<bool>() : rc::gen::just(false),
        rc::gen::container<std::vector<Position>>((axes > 0 ? axes - 1 : 0) * n, position()));
  });
}

rc::Gen<Call> RequestGens::attention() const {
  // The declared heads (params.attention): H query heads, G key/value heads.
  const int heads = info_.attention.query_heads(), kv_heads = info_.attention.key_heads();
  return rc::gen::mapcat(rc::gen::tuple(rc::gen::inRange(1, 5), rc::gen::inRange(1, 5), rc::gen::inRange(1, 5),
                                        rc::gen::inRange(1, 5), rc::gen::arbitrary<bool>()),
                         [heads, kv_heads](auto shape) {
    const auto [n, m_drawn, dk, dv, causal] = shape;
    const int m = causal ? n : m_drawn;  // a causal mask is square
    return rc::gen::apply(
        [causal = causal, heads](Matrix q, Matrix k, Matrix v) -> Call {
          return AttentionCall{std::move(q), std::move(k), std::move(v),
                               causal ? AttentionMask::causal() : AttentionMask::none(), heads};
        },
        gen::matrix(n, heads * dk, -kRange, kRange), gen::matrix(m, kv_heads * dk, -kRange, kRange),
        gen::matrix(m, kv_heads * dv, -kRange, kRange));
  });
}

rc::Gen<Call> RequestGens::bias() const {
  const int heads = info_.bias ? std::max(1, info_.bias->heads) : 1;
  return rc::gen::apply([](int n, int m, int head) -> Call { return BiasCall{n, m, head}; }, rc::gen::inRange(1, 25),
                        rc::gen::inRange(1, 25), rc::gen::inRange(0, heads));
}

rc::Gen<Call> RequestGens::forward() const {
  const int declared = info_.forward ? info_.forward->width : 0;
  const auto width = declared > 0 ? rc::gen::just(declared) : rc::gen::elementOf(std::vector<int>{8, 16, 32, 64});
  const Position max = max_position_;
  return rc::gen::mapcat(rc::gen::pair(width, rc::gen::inRange(1, 5)), [*this, max](std::pair<int, int> shape) {
    const auto [d, n] = shape;
    using Sequence = std::pair<Matrix, Position>;
    return rc::gen::map(some<Sequence>(1, 2, rc::gen::pair(gen::matrix(n, d, -kRange, kRange), position())),
                        [n = n, max](const std::vector<Sequence>& seqs) -> Call {
      ForwardCall call;
      for (const auto& [x, drawn] : seqs) {
        const Position from = std::max<Position>(0, std::min<Position>(drawn, max - n + 1));
        Positions row(static_cast<size_t>(n));
        for (int r = 0; r < n; ++r) row[static_cast<size_t>(r)] = from + r;
        call.x.push_back(x);
        call.positions.push_back(std::move(row));
      }
      return call;
    });
  });
}

rc::Gen<Call> RequestGens::decode(const HistoryModel& model) const {
  const int declared = info_.forward ? info_.forward->width : 0;
  const auto width = declared > 0 ? rc::gen::just(declared) : rc::gen::elementOf(std::vector<int>{8, 16, 32, 64});
  const auto next = model.next;
  return rc::gen::mapcat(rc::gen::pair(rc::gen::elementOf(kSessions), width), [*this, next](auto choice) {
    const auto [session, d] = choice;
    const auto found = next.find(session);
    // A session decodes on from where it stopped; a new one starts anywhere.
    const auto at = found != next.end() ? rc::gen::just(found->second) : position();
    return rc::gen::apply(
        [session = session](Matrix x, Position t) -> Call { return DecodeCall{session, x.row(0).transpose(), t}; },
        gen::matrix(1, d, -kRange, kRange), at);
  });
}

rc::Gen<Call> RequestGens::reset() const {
  return rc::gen::map(rc::gen::elementOf(kSessions), [](std::string s) -> Call { return ResetCall{std::move(s)}; });
}

rc::Gen<Call> RequestGens::any(const HistoryModel& model) const {
  std::vector<std::pair<int, rc::Gen<Call>>> choices;
  if (info_.supports(Op::encode)) choices.push_back({2, encode()});
  if (info_.supports(Op::rotate)) choices.push_back({2, rotate()});
  if (info_.supports(Op::attention)) choices.push_back({2, attention()});
  if (info_.supports(Op::bias)) choices.push_back({2, bias()});
  if (info_.supports(Op::forward)) choices.push_back({2, forward()});
  if (info_.supports(Op::decode)) {
    choices.push_back({4, decode(model)});
    choices.push_back({1, reset()});
  }
  if (choices.empty()) return reset();  // nothing to ask: the case measures nothing and is discarded
  return weighted(choices);
}

}  // namespace pecheck::history
