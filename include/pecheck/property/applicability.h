#pragma once
// When a claim applies to a subject, as data: the op it needs (the claims
// table's `op`) and, for claims that only hold for some declared conventions,
// a condition on what the subject declares (the table's `applies_when`).
// CLAIMS.md §6–7 state such conditions: module.causality for `causal: true`,
// module.shift_invariance for `positional: relative`, bias.monotone_decay for
// ALiBi. The plan, replay and the C++ adapter ask PropertyInfo::applies_to,
// which evaluates what is built here.
//
// Grammar: conditions joined by " and ", each one of
//   op:A|B                     the subject offers one of these ops; op: terms
//                              replace the row's op (a claim over several ops
//                              lists them all; several op: terms must all hold)
//   forward.causal             params.forward declared with causal true
//   !forward.causal            params.forward declared with causal false
//   forward.positional=V|W     params.forward declared, positional one of these
//   forward.positional!=V|W    params.forward declared, positional none of these
//   forward.positions=V|W      params.forward declared, its positions from one of these (given, from_padding)
//   bias.scheme=V|W            params.bias declared with one of these schemes
//   rotate.partial             params.rotate declares rotary_dim or rotary_fraction
//                              (rope.pass_through: with none, nothing passes through)
//   rotate.scaling=V|W         params.rotate.scaling is one of these types (longrope, …)
//   rotate.multi_axis          params.rotate declares mrope_section (positions per axis)
//   rotate.axes_2d             params.rotate declares rope_2d (row and column positions)
//   rotate.max_position        params.rotate declares max_position_embeddings (or a config does)
//   forward.layers             params.forward declares per-layer positional settings
//   forward.temperature_tuning a layer of params.forward.layers declares attn_temperature_tuning
//   attention.F                params.attention declares F: heads, window, chunk,
//                              softcap, sinks, alignment, fully_masked, poison_invariance,
//                              dual_chunk
//   attention.referenced       always true: names a claim that judges attention by value
//                              against the declared reference (a claim over attention
//                              requests that names neither this nor attention.dual_chunk
//                              does not apply under dual chunk attention)
//   forward.F                  params.forward declares F: segments, cache_capacity,
//                              multi_token_decode, window, chunk (window and chunk
//                              also where a declared layer has one)
//   model                      a model config is the declaration (params.model)
//   context_shift              params.rotate or params.forward declares context_shift
//   backward.of=A|B            params.backward.of names one of these ops (rotate, attention, forward)
//   backward.referenced        params.backward.of names rotate or attention, or forward where the
//                              subject's scheme is one of pecheck's reference modules (a module's
//                              VJP has a reference only there: subjects/builtin/modules_llama.h)
//   backward.causal            params.backward.of names attention, or forward with params.forward
//                              declared causal
//   restartable                a fresh copy of the subject can be started from
//                              its spec (property/fresh.h)
// A condition on a params block the subject does not declare is false: a
// claim about causal modules does not apply to a module that says nothing.
#include <functional>
#include <string_view>

#include "pecheck/core/vocabulary.h"

namespace pecheck {

// The condition `applies_when` (with the row's op) as a predicate. Throws
// std::logic_error naming the term for one it does not know: the claims
// table is code, and a typo there is a defect the registry test catches.
std::function<bool(const SubjectInfo&)> applicability(Op op, std::string_view applies_when);

// A condition on declarations alone (the grammar's terms, no op implied; terms
// joined by " or "): violated_when of the claims table.
std::function<bool(const SubjectInfo&)> declares(std::string_view condition);

}  // namespace pecheck
