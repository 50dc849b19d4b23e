// The requests history_independence draws (history/run.h: RequestGens).
#include <algorithm>

#include "history/run.h"
#include "pecheck/core/op_table.h"
#include "pecheck/gen/fast_random.h"
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

RequestGens::RequestGens(const GenContext& ctx)
    : ctx_(ctx), info_(ctx.subject), max_position_(std::max<Position>(0, ctx.max_position)) {}

rc::Gen<int> RequestGens::among(Op op, Axis axis, std::vector<int> usual, int lo, int hi) const {
  const AxisLimits limits = axis_limits(info_, ctx_.max_position, ctx_.max_width, op, axis);
  if (!limits.declared) return rc::gen::elementOf(std::move(usual));
  std::erase_if(usual, [&](int v) { return !limits.allows(v); });
  if (usual.empty()) usual = small_sizes(ctx_, op, axis, lo, hi);
  return rc::gen::elementOf(std::move(usual));
}

int RequestGens::decode_width() const {
  const int declared = info_.forward ? info_.forward->width : 0;
  if (declared > 0) return declared;
  return small_sizes(ctx_, Op::decode, Axis::width, 16, 16).front();
}

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
      among(Op::encode, Axis::width, {4, 8, 16}, 2, 16), positions(), position());
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
  return rc::gen::mapcat(rc::gen::pair(among(Op::rotate, Axis::width, widths, 2, 16), positions()),
                         [*this, always, axes](auto shape) {
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
  return rc::gen::mapcat(rc::gen::tuple(size_on(ctx_, Op::attention, Axis::queries, 1, 4),
                                        size_on(ctx_, Op::attention, Axis::keys, 1, 4),
                                        size_on(ctx_, Op::attention, Axis::width, 1, 4),
                                        size_on(ctx_, Op::attention, Axis::width, 1, 4), rc::gen::arbitrary<bool>()),
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
  return rc::gen::apply([](int n, int m, int head) -> Call { return BiasCall{n, m, head}; },
                        size_on(ctx_, Op::bias, Axis::queries, 1, 24), size_on(ctx_, Op::bias, Axis::keys, 1, 24),
                        rc::gen::inRange(0, heads));
}

rc::Gen<Call> RequestGens::forward() const {
  const int declared = info_.forward ? info_.forward->width : 0;
  const auto width = declared > 0 ? rc::gen::just(declared) : among(Op::forward, Axis::width, {8, 16, 32, 64}, 1, 64);
  const Position max = max_position_;
  return rc::gen::mapcat(rc::gen::pair(width, size_on(ctx_, Op::forward, Axis::tokens, 1, 4)),
                         [*this, max](std::pair<int, int> shape) {
    const auto [d, n] = shape;
    using Sequence = std::pair<Matrix, Position>;
    auto sequence = rc::gen::pair(gen::matrix(n, d, -kRange, kRange), position());
    auto batch = rc::gen::mapcat(size_on(ctx_, Op::forward, Axis::batch, 1, 2), [sequence](int count) {
      return rc::gen::container<std::vector<Sequence>>(static_cast<size_t>(count), sequence);
    });
    return rc::gen::map(batch,
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
  const auto width = declared > 0 ? rc::gen::just(declared) : among(Op::decode, Axis::width, {8, 16, 32, 64}, 1, 64);
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

std::vector<std::pair<int, rc::Gen<Call>>> RequestGens::stateless_choices() const {
  std::vector<std::pair<int, rc::Gen<Call>>> choices;
  if (info_.supports(Op::encode)) choices.push_back({2, encode()});
  if (info_.supports(Op::rotate)) choices.push_back({2, rotate()});
  if (info_.supports(Op::attention)) choices.push_back({2, attention()});
  if (info_.supports(Op::bias)) choices.push_back({2, bias()});
  if (info_.supports(Op::forward)) choices.push_back({2, forward()});
  return choices;
}

std::optional<rc::Gen<Call>> RequestGens::stateless() const {
  const auto choices = stateless_choices();
  if (choices.empty()) return std::nullopt;
  return weighted(choices);
}

namespace {

constexpr std::size_t kPool = 4;        // stateless requests a long script asks again and again
constexpr std::size_t kLongestRemoval = 64;  // scripts this long or shorter also shrink one request at a time

// A long script shrinks by its length first (a prefix: a cache that goes
// wrong after 50 requests needs 51), then, once short, one request at a time.
rc::Seq<Script> shrink_long(const Script& s) {
  const std::size_t n = s.requests.size();
  auto prefixes = rc::seq::map(rc::shrink::towards<std::size_t>(n, 1), [s](std::size_t keep) {
    Script p;
    p.requests.assign(s.requests.begin(), s.requests.begin() + static_cast<std::ptrdiff_t>(keep));
    return p;
  });
  std::vector<Script> removals;
  for (std::size_t i = 0; n <= kLongestRemoval && n > 1 && i < n; ++i) {
    Script r = s;
    r.requests.erase(r.requests.begin() + static_cast<std::ptrdiff_t>(i));
    removals.push_back(std::move(r));
  }
  return rc::seq::concat(std::move(prefixes), rc::seq::fromContainer(std::move(removals)));
}

}  // namespace

rc::Gen<Script> RequestGens::long_script(int length) const {
  const bool decodes = info_.supports(Op::decode);
  const auto pool_item = stateless();
  const rc::Gen<std::vector<Call>> pool =
      pool_item ? rc::gen::container<std::vector<Call>>(kPool, *pool_item) : rc::gen::just(std::vector<Call>{});
  const int width = decodes ? decode_width() : 1;
  // A session holds positions 0..max_position, and no more tokens than it declares (params.forward.shapes.n).
  Position capacity = max_position_ + 1;
  const Op by = declaring_op(info_.shapes, Op::decode);
  if (const Extent* n = info_.shapes.find(by, ShapeDim::n); n && n->largest()) capacity = std::min(capacity, *n->largest());
  auto build = rc::gen::apply(
      [length, decodes, width, capacity](const std::vector<Call>& calls, std::uint64_t seed) {
        gen::FastRandom r(seed);
        Script s;
        Position next = 0;
        for (int k = 0; k < length; ++k) {
          // Mostly the session's next token: a long script passes a cache's capacity.
          const bool decode = decodes && (calls.empty() || r.next() % 4 != 0);
          if (!decode) {
            s.requests.push_back(calls[r.next() % calls.size()]);
            continue;
          }
          if (next >= capacity) {  // the session is full (--max-position, its declared n): it starts again
            s.requests.push_back(ResetCall{"a"});
            next = 0;
            continue;
          }
          Vector x(width);
          for (int j = 0; j < width; ++j) x(j) = r.uniform(-kRange, kRange);
          s.requests.push_back(DecodeCall{"a", std::move(x), next++});
        }
        return s;
      },
      pool, rc::gen::noShrink(rc::gen::arbitrary<std::uint64_t>()));
  return rc::Gen<Script>([build](const rc::Random& random, int size) {
    return rc::shrinkable::shrinkRecur(build(random, size).value(), &shrink_long);
  });
}

rc::Gen<Call> RequestGens::any(const HistoryModel& model) const {
  std::vector<std::pair<int, rc::Gen<Call>>> choices = stateless_choices();
  if (info_.supports(Op::decode)) {
    choices.push_back({4, decode(model)});
    choices.push_back({1, reset()});
  }
  if (choices.empty()) return reset();  // nothing to ask: the case measures nothing and is discarded
  return weighted(choices);
}

}  // namespace pecheck::history
