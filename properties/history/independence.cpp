// CLAIMS.md §7 — history_independence: for every op, the answer to a request
// does not depend on the requests before it. Caches keyed wrong (by length,
// not by offset), a cache grown for a long sequence and never shrunk, a
// reset that leaves entries behind, a cache rebuilt in a lower precision
// and kept: each answers some request differently after some history.
//
// A RapidCheck state-machine test (rc::state): the commands are protocol
// requests, drawn for the ops the subject offers (lengths growing and
// shrinking, offsets, interleaved widths, decode sessions and their resets);
// the model tracks each decode session's next position so that sessions
// decode as a model would. Every case starts a fresh copy of the subject,
// runs the script on it, and compares each answer with the answer of a
// freshly started copy to that request alone — for a decode, to the
// session's decodes since its last reset, which are its legitimate history.
// RapidCheck shrinks a failing script by removing requests and simplifying
// each one, so the counterexample is the shortest request sequence that
// shows the difference, written as a list of protocol requests that
// `pecheck replay` runs again.
//
// Fresh copies come from GenContext::fresh or, without one, from the subject
// or its spec (property/fresh.h): copies forked from a zygote where the
// subject declares fork, processes started again otherwise. A script's fresh
// answers are asked ahead, two copies at a time, while its scripted copy
// runs (one at a time as needed where copies are started afresh); they are
// remembered per cell, so shrinking makes no copy twice for one request.
#include <fmt/format.h>
#include <rapidcheck/state.h>

#include <algorithm>
#include <map>
#include <memory>
#include <sstream>

#include "history/run.h"
#include "history/script.h"
#include "pecheck/property/fresh.h"
#include "pecheck/property/registry.h"

namespace pecheck::history::independence {

namespace {

using history::HistoryModel;
using history::HistoryRun;
using history::ReferenceAnswers;
using history::Script;
using Command = rc::state::Command<HistoryModel, HistoryRun>;
using CommandPtr = std::shared_ptr<const Command>;

// One request of the script as a state-machine command.
class Request final : public Command {
 public:
  explicit Request(Call call) : call_(std::move(call)) {}
  const Call& call() const { return call_; }

  void apply(HistoryModel& model) const override {
    if (const auto* d = std::get_if<DecodeCall>(&call_)) model.next[d->session] = d->position + 1;
    if (const auto* r = std::get_if<ResetCall>(&call_)) model.next.erase(r->session);
  }
  void run(const HistoryModel&, HistoryRun& sut) const override { sut.answer(call_); }
  void show(std::ostream& os) const override { os << history::request_to_json(call_).dump(); }

 private:
  Call call_;
};

constexpr int kLongestScript = 8;  // requests per case at full size (shrinking toward 1)

rc::Gen<Script> script_gen(const GenContext& ctx) {
  const history::RequestGens requests(ctx);
  // A ladder case: one script of tens to hundreds of requests (sizes.h).
  if (focused(ctx, Axis::history)) {
    return rc::gen::mapcat(size_on(ctx, Op::decode, Axis::history, 1, kLongestScript),
                           [requests](int length) { return requests.long_script(length); });
  }
  auto next = [requests](const HistoryModel& model) {
    return rc::gen::map(requests.any(model), [](Call call) -> CommandPtr { return std::make_shared<Request>(call); });
  };
  // The script's length follows a size capped at kLongestScript; each request
  // is drawn at the case's own size (rc::gen::inRange scales with the size,
  // so a capped size would leave every request at its smallest shape and
  // position, and the first op).
  auto commands = rc::gen::withSize([next](int size) {
    auto at_full_size = [next, size](const HistoryModel& model) { return rc::gen::resize(size, next(model)); };
    return rc::gen::resize(std::min(size, kLongestScript), rc::state::gen::commands(HistoryModel{}, at_full_size));
  });
  return rc::gen::map(commands, [](const rc::state::Commands<Command>& script) {
    Script out;
    for (const auto& command : script) out.requests.push_back(static_cast<const Request&>(*command).call());
    return out;
  });
}

// Runs the script on a fresh copy, seen through `watch` (the cell counts its
// requests: the history a case reached).
Measurement run_script(const Script& script, ReferenceAnswers& reference, const BoundModel& model,
                       const std::function<Subject&(Subject&)>& watch) {
  rc::state::Commands<Command> commands;
  for (const auto& call : script.requests) commands.push_back(std::make_shared<Request>(call));
  reference.prefetch(script.requests);  // the fresh answers, asked while the scripted copy runs
  const SubjectPtr scripted = reference.start();
  HistoryRun run(watch(*scripted), reference, model);
  rc::state::runAll(commands, HistoryModel{}, run);
  reference.prove_fresh(script.requests, model);
  return run.measurement();
}

// Whether the subject's fresh copies are forked (it declared fork, and pecheck uses it).
bool forks(const SubjectInfo& subject) {
  return std::find(subject.declared.begin(), subject.declared.end(), "fork") != subject.declared.end();
}

Script script_from(const json& inputs) {
  Script script;
  try {
    history::from_json(inputs, script);
  } catch (const json::exception& e) {
    throw InvalidInput(e.what());
  }
  return script;
}

// A drawn script, run on a fresh copy the cell watches against this cell's
// memory of fresh answers.
class DrawnScript final : public DrawnInput {
 public:
  DrawnScript(Script script, std::shared_ptr<ReferenceAnswers> reference)
      : script_(std::move(script)), reference_(std::move(reference)) {}
  Measurement measure(CaseSink& sink) const override {
    return run_script(script_, *reference_, sink.model(), [&sink](Subject& s) -> Subject& { return sink.watched(s); });
  }
  json inputs() const override { return json(script_); }

 private:
  Script script_;
  std::shared_ptr<ReferenceAnswers> reference_;
};

}  // namespace

std::vector<PropertyImpl> properties() {
  PropertyImpl impl;
  impl.id = "history_independence";
  impl.checks = {std::string(history::kCheck)};
  impl.draw = [](const GenContext& ctx) {
    // One memory of fresh answers per cell: shrinking asks the same requests again and again.
    auto reference = std::make_shared<ReferenceAnswers>(fresh_subject(ctx.subject, ctx.fresh), forks(ctx.subject));
    if (forks(ctx.subject) && starts_from_spec(ctx.subject)) {
      // One proof per cell: the search's draw makes it, each ladder case's shares it.
      auto afresh = [info = ctx.subject] { return fresh_subject(info)(); };
      if (!ctx.cell_memory) {
        reference->start_afresh_with(afresh);
      } else {
        std::shared_ptr<void>& kept = *ctx.cell_memory;
        if (!kept) kept = std::make_shared<history::FreshProof>(afresh);
        reference->share_proof(std::static_pointer_cast<history::FreshProof>(kept));
      }
    }
    return rc::gen::map(script_gen(ctx), [reference](Script script) -> DrawnPtr {
      return std::make_shared<const DrawnScript>(std::move(script), reference);
    });
  };
  impl.remeasure = [](Subject& subject, const json& inputs, const BoundModel& model) {
    const Script script = script_from(inputs);
    ReferenceAnswers reference(fresh_subject(subject), forks(subject.info()));
    return run_script(script, reference, model, [](Subject& s) -> Subject& { return s; });
  };
  impl.validate = [](const json& inputs) { script_from(inputs); };
  // What a history difference means (no lower precision explains an answer
  // that a fresh copy gives otherwise): state kept from earlier requests.
  impl.diagnose = [](Subject& subject, const json& inputs, const BoundModel& model) -> std::string {
    const Script script = script_from(inputs);
    ReferenceAnswers reference(fresh_subject(subject), forks(subject.info()));
    // Forked copies proven fresh for every counterexample: a difference between a forked copy and one
    // started anew on the witness's first request is state shared across forks, whatever the script shows.
    if (forks(subject.info()) && starts_from_spec(subject.info()) && !script.requests.empty() &&
        !std::holds_alternative<DecodeCall>(script.requests.front())) {
      reference.start_afresh_with([info = subject.info()] { return fresh_subject(info)(); });
      if (auto why = reference.fork_differs(script.requests.front(), model)) return *why;
    }
    const Measurement m = run_script(script, reference, model, [](Subject& s) -> Subject& { return s; });
    if (m.checks.empty()) return {};
    const Check& c = m.checks.front();
    const bool first = c.where.label.rfind("request 1:", 0) == 0;
    return first ? fmt::format("{}: two freshly started copies answer it differently (an answer that is not a "
                               "function of its request)",
                               c.where.label)
                 : fmt::format("{}: its answer is not a freshly started copy's, so it depends on the requests "
                               "before it (state kept across requests: a cache, a kept offset or delta, a grown "
                               "table)",
                               c.where.label);
  };
  impl.axes = {Axis::history};
  return {std::move(impl)};
}

}  // namespace pecheck::history::independence
