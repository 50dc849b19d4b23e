// CLAIMS.md §10 — rope.position_domain: every position below the declared
// or configured max_position_embeddings P (params.rotate, or the model
// config's) is answered with the reference values — a cos/sin table that ends
// before P (and clamps or wraps), or a scaling factor applied to the position
// range a second time (vLLM PR #56446), shows only at the positions a short
// search never reaches. rope.reference_values draws positions within
// --max-position; this claim draws them across [0, P): the top of the range,
// the powers of two and the original context (where tables are sized), and
// anywhere, compared pair by pair as rope.reference_values compares them.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "pecheck/property/identify.h"
#include "pecheck/reference/rotary.h"
#include "rope/common.h"
#include "input_checks.h"

namespace pecheck::rope::position_domain {

namespace {

constexpr const char* kDomain = "every position below max_position_embeddings";

struct DomainCase {
  int dim = 2;
  Positions positions;
  Position seq_len = 1;  // max(positions) + 1
  Matrix x;
  void validate() const {
    input::width("dim", dim);
    input::length("seq_len", seq_len);
    input::positions("positions", positions, seq_len);
    input::matrix("x", x, static_cast<Eigen::Index>(positions.size()), dim);
  }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(DomainCase, dim, positions, seq_len, x)

Position domain_of(const SubjectInfo& s) {
  const auto p = declared(s).max_position_embeddings;
  if (!p) throw InvalidInput("rope.position_domain: no max_position_embeddings declared");
  return std::min<Position>(*p, input::kMaxPosition);
}

// Where tables end: P − 1 and just below, each power of two below P and the
// one before it, the original context and P / factor (a factor applied once
// more), and anywhere.
rc::Gen<Position> domain_position(const SubjectInfo& s) {
  const Position p = domain_of(s);
  std::vector<Position> edges;
  for (Position t = 1; t < p; t *= 2) edges.insert(edges.end(), {t - 1, t});
  const RopeScaling& scaling = declared(s).scaling;
  if (scaling.original_max_position > 0) {
    edges.insert(edges.end(), {scaling.original_max_position - 1, scaling.original_max_position});
  }
  if (scaling.factor > 1) {
    const auto shorter = static_cast<Position>(static_cast<double>(p) / scaling.factor);
    edges.insert(edges.end(), {shorter - 1, shorter});
  }
  edges.erase(std::remove_if(edges.begin(), edges.end(), [p](Position t) { return t < 0 || t >= p; }), edges.end());
  if (edges.empty()) edges.push_back(0);
  return rc::gen::weightedOneOf<Position>({{3, rc::gen::inRange<Position>(std::max<Position>(0, p - 8), p)},
                                           {2, rc::gen::elementOf(edges)},
                                           {2, rc::gen::inRange<Position>(0, p)}});
}

rc::Gen<DomainCase> domain_gen(const GenContext& ctx) {
  const Position p = domain_of(ctx.subject);
  (void)p;  // refuses a subject without max_position_embeddings before drawing
  return rc::gen::mapcat(width_among(ctx, valid_dims(ctx.subject), defined_width(ctx.subject)), [ctx](int dim) {
    return rc::gen::apply(
        [dim](Positions ts, Matrix x) {
          DomainCase c;
          c.dim = dim;
          if (ts.size() > 4) ts.resize(4);
          c.positions = std::move(ts);
          // The sequence just long enough for its positions (transformers' max(position_ids) + 1): the
          // claim is about positions; a length-dependent scaling is rope.reference_values's to judge.
          c.seq_len = *std::max_element(c.positions.begin(), c.positions.end()) + 1;
          c.x = x.topRows(static_cast<Eigen::Index>(c.positions.size()));
          return c;
        },
        rc::gen::resize(4, rc::gen::nonEmpty(rc::gen::container<Positions>(domain_position(ctx.subject)))),
        vectors(4, dim));
  });
}

Measurement domain_measure(Subject& s, const DomainCase& c, const BoundModel& model) {
  const SubjectInfo& info = s.info();
  const RotateConvention convention = declared(info);
  const Matrix answer = rotate(s, c.positions, c.x, c.seq_len);
  const Matrix expected = reference::rotary(c.positions, c.x, convention, c.seq_len);
  const int r = rotated_width(info, c.dim);
  const auto omegas = frequencies(info, c.dim, request_length(info, c.positions, c.seq_len));
  PairComparison compared =
      compare_pairs(info, model, c.positions, c.x, answer, expected, omegas, convention, magnitude(info), kDomain);
  if (!compared.worst && !compared.any_unresolved) throw std::logic_error("rope.position_domain compared no pair");
  Check check = compared.worst ? std::move(*compared.worst) : std::move(*compared.any_unresolved);
  check.note = fmt::format("R_t x at positions below max_position_embeddings = {} against the reference ({}), "
                           "features 0..{} of {}",
                           domain_of(info), identify::describe(convention), r - 1, c.dim);
  Measurement m;
  if (compared.unresolved > 0) {
    m.note = fmt::format("{} pair(s) not checkable in {} angles (from position {} on)", compared.unresolved,
                         name(model.dtype(Stage::angles)), compared.first_unresolved);
  }
  m.checks.push_back(std::move(check));
  return m;
}

// Which position the answer's rotation is: the reference at t mod T (a
// table of T positions that wraps), at min(t, T − 1) (one that clamps), or
// at t / factor (a factor applied twice).
std::string domain_diagnose(Subject& s, const DomainCase& c, const BoundModel& model) {
  const SubjectInfo& info = s.info();
  const RotateConvention convention = declared(info);
  try {
    const Matrix answer = rotate(s, c.positions, c.x, c.seq_len);
    const auto fits = [&](const Positions& at, const RotateConvention& as) {
      const Matrix expected = reference::rotary(at, c.x, as, c.seq_len);
      const auto omegas = frequencies(info, c.dim, request_length(info, c.positions, c.seq_len));
      const auto compared =
          compare_pairs(info, model, at, c.x, answer, expected, omegas, as, magnitude(info), "fit");
      return compared.worst && compared.worst_ratio <= 1;
    };
    const Position p = domain_of(info);
    std::vector<Position> tables;
    for (Position t = 1; t < p; t *= 2) tables.push_back(t);
    if (convention.scaling.original_max_position > 0) tables.push_back(convention.scaling.original_max_position);
    if (convention.scaling.factor > 1) tables.push_back(static_cast<Position>(static_cast<double>(p) / convention.scaling.factor));
    for (Position table : tables) {
      if (table < 1 || table >= p) continue;
      Positions wrapped = c.positions, clamped = c.positions;
      for (auto& t : wrapped) t %= table;
      for (auto& t : clamped) t = std::min(t, table - 1);
      if (wrapped != c.positions && fits(wrapped, convention)) {
        return fmt::format("positions {} answered as {}: a cos/sin table of {} positions that wraps (max_position_"
                           "embeddings = {}: the table ends short of it — vLLM PR #56446)",
                           fmt::join(c.positions, ", "), fmt::join(wrapped, ", "), table, p);
      }
      if (clamped != c.positions && fits(clamped, convention)) {
        return fmt::format("positions {} answered as {}: a cos/sin table of {} positions, clamped at its end "
                           "(max_position_embeddings = {})",
                           fmt::join(c.positions, ", "), fmt::join(clamped, ", "), table, p);
      }
    }
    if (convention.scaling.type == ScalingType::linear && convention.scaling.factor > 1) {
      RotateConvention twice = convention;
      twice.scaling.factor = convention.scaling.factor * convention.scaling.factor;
      if (fits(c.positions, twice)) {
        return fmt::format("the rotation is linear scaling by {} = {}²: the factor applied twice, to the positions "
                           "and again to the frequencies (vLLM PR #56446)",
                           twice.scaling.factor, convention.scaling.factor);
      }
    }
  } catch (const std::exception&) {
  }
  return identify::diagnose_rotary(s, model, c.dim, c.positions, c.seq_len);
}

}  // namespace

std::vector<PropertyImpl> properties() {
  return {define<DomainCase>("rope.position_domain", {kDomain}, domain_gen, domain_measure, domain_diagnose)};
}

}  // namespace pecheck::rope::position_domain
