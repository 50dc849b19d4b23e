// Subject specs (pecheck/core/subject_spec.h): the one parser and formatter
// of KIND:PAYLOAD, the messages a spec with no or an unknown kind gets (the
// same from the factory, the config file and the CLI as before there was one
// parser), and the kinds' predicates.
#include <boost/test/unit_test.hpp>

#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "pecheck/config/config_file.h"
#include "pecheck/core/subject_spec.h"
#include "pecheck/subjects/factory.h"

BOOST_AUTO_TEST_SUITE(test_subject_spec)

using namespace pecheck;

namespace {

const std::vector<SubjectKind>& all_kinds() {
  static const std::vector<SubjectKind> kinds = {SubjectKind::builtin, SubjectKind::mutant,        SubjectKind::cmd,
                                                 SubjectKind::plugin,  SubjectKind::plugin_inproc, SubjectKind::fd,
                                                 SubjectKind::cpp};
  return kinds;
}

std::string message_of(std::string_view spec) {
  try {
    parse_subject_spec(spec);
  } catch (const BadSubjectSpec& e) {
    return e.what();
  }
  return "(parsed)";
}

}  // namespace

BOOST_AUTO_TEST_CASE(each_kind_parses_to_itself_and_formats_back) {
  const std::vector<std::pair<std::string, SubjectSpec>> cases = {
      {"builtin:sinusoidal", {SubjectKind::builtin, "sinusoidal"}},
      {"mutant:rope-wrong-base", {SubjectKind::mutant, "rope-wrong-base"}},
      {"cmd:python3 my_subject.py --port 1:2", {SubjectKind::cmd, "python3 my_subject.py --port 1:2"}},
      {"plugin:./libmy_encoder.so", {SubjectKind::plugin, "./libmy_encoder.so"}},
      {"plugin-inproc:/tmp/a:b.so", {SubjectKind::plugin_inproc, "/tmp/a:b.so"}},
      {"fd:5,6", {SubjectKind::fd, "5,6"}},
      {"cpp:my-encoder", {SubjectKind::cpp, "my-encoder"}},
      {"cmd:", {SubjectKind::cmd, ""}},  // an empty payload is the kind's own business (the factory's message)
  };
  for (const auto& [text, spec] : cases) {
    BOOST_TEST_CONTEXT(text) {
      const SubjectSpec parsed = parse_subject_spec(text);
      BOOST_TEST((parsed.kind == spec.kind));
      BOOST_TEST(parsed.payload == spec.payload);
      BOOST_TEST((try_parse_subject_spec(text) == std::optional<SubjectSpec>(spec)));
      BOOST_TEST(format_spec(parsed) == text);
      BOOST_TEST(spec_of(spec.kind, spec.payload) == text);
      BOOST_TEST(is_kind(text, spec.kind));
    }
  }
}

BOOST_AUTO_TEST_CASE(every_kind_round_trips_with_any_payload) {
  for (SubjectKind kind : all_kinds()) {
    for (std::string payload : {"", "x", "a:b:c", " spaced out ", "fd:1,2"}) {
      const std::string text = spec_of(kind, payload);
      BOOST_TEST_CONTEXT(text) {
        BOOST_TEST(text.starts_with(std::string(kind_name(kind)) + ":"));
        BOOST_TEST((parse_subject_spec(text) == SubjectSpec{kind, payload}));
      }
    }
  }
  BOOST_TEST(kind_name(SubjectKind::plugin_inproc) == "plugin-inproc");
}

BOOST_AUTO_TEST_CASE(no_kind_or_an_unknown_kind_is_a_bad_spec_with_the_usual_words) {
  BOOST_TEST(message_of("sinusoidal") ==
             "subject 'sinusoidal' has no kind; write builtin:NAME, mutant:NAME, cmd:COMMAND, fd:READ,WRITE or "
             "plugin:PATH");
  BOOST_TEST(message_of("bultin:sinusoidal") == "unknown subject kind 'bultin' in 'bultin:sinusoidal'");
  BOOST_TEST(message_of(":x") == "unknown subject kind '' in ':x'");
  // Kinds are matched whole and case-sensitively: a prefix of a kind is no kind.
  for (const char* bad : {"", "Builtin:x", "plugin-in:x", "cmd :x", "builtin-x", "plug:x"}) {
    BOOST_TEST_CONTEXT(bad) {
      BOOST_TEST(!try_parse_subject_spec(bad).has_value());
      BOOST_CHECK_THROW(parse_subject_spec(bad), BadSubjectSpec);
      for (SubjectKind kind : all_kinds()) BOOST_TEST(!is_kind(bad, kind));
    }
  }
}

BOOST_AUTO_TEST_CASE(the_factory_and_the_config_keep_their_messages) {
  auto factory_message = [](std::string_view spec) -> std::string {
    try {
      make_subject(spec);
    } catch (const BadSubjectSpec& e) {
      return e.what();
    }
    return "(made)";
  };
  BOOST_TEST(factory_message("nokind") == message_of("nokind"));
  BOOST_TEST(factory_message("bultin:x") == "unknown subject kind 'bultin' in 'bultin:x'");
  BOOST_TEST(factory_message("cmd:  ") == "'cmd:  ' names no command; write cmd:'python3 my_subject.py'");
  BOOST_TEST(factory_message("plugin-inproc:") ==
             "'plugin-inproc:' names no file; write plugin-inproc:PATH (e.g. plugin-inproc:./libmy_encoder.so)");
  BOOST_TEST(factory_message("fd:5") == "'fd:5' is not fd:READ,WRITE with two descriptor numbers (e.g. fd:5,6)");
  BOOST_TEST(factory_message("builtin:sinusoidal") == "(made)");

  BOOST_TEST(user_subject_problem("builtin:sinusoidal") == "");
  BOOST_TEST(user_subject_problem("fd:5,6") == "");
  BOOST_TEST(user_subject_problem("nokind") ==
             "'nokind' has no known kind; write builtin:NAME, mutant:NAME, cmd:COMMAND, plugin:PATH or fd:READ,WRITE");
  BOOST_TEST(user_subject_problem("cmd:") == "'cmd:' names no command; write cmd:'python3 my_subject.py'");
  BOOST_TEST(user_subject_problem("plugin: ") == "'plugin: ' names no file; write plugin:PATH");
  BOOST_TEST(user_subject_problem("plugin-inproc:lib.so") ==
             "'plugin-inproc:lib.so': plugin-inproc: loads the plugin into pecheck itself, where a crash ends the "
             "whole run; it is internal to 'pecheck serve'. Write plugin:lib.so (the same library, in a child "
             "process)");
}

BOOST_AUTO_TEST_CASE(the_predicates_sort_the_kinds) {
  using K = SubjectKind;
  for (SubjectKind kind : all_kinds()) {
    BOOST_TEST_CONTEXT(kind_name(kind)) {
      BOOST_TEST(is_builtin_like(kind) == (kind == K::builtin || kind == K::mutant));
      BOOST_TEST(starts_again_from_spec(kind) == (kind == K::builtin || kind == K::mutant || kind == K::cmd));
      BOOST_TEST(runs_in_another_process(kind) == (kind == K::cmd || kind == K::fd || kind == K::plugin));
    }
  }
}

BOOST_AUTO_TEST_CASE(specs_built_by_name_are_the_specs_their_text_names) {
  BOOST_TEST((builtin_spec("attention") == SubjectSpec{SubjectKind::builtin, "attention"}));
  BOOST_TEST((mutant_spec("rope-wrong-base") == SubjectSpec{SubjectKind::mutant, "rope-wrong-base"}));
  BOOST_TEST((cpp_spec("my-encoder") == SubjectSpec{SubjectKind::cpp, "my-encoder"}));
  BOOST_TEST(format_spec(builtin_spec("attention")) == "builtin:attention");
  BOOST_TEST(format_spec(mutant_spec("attention-causal-path-unscaled")) == "mutant:attention-causal-path-unscaled");
  BOOST_TEST(format_spec(cpp_spec("test-sinusoid")) == "cpp:test-sinusoid");
  // parse ∘ format is the identity on every spec, of every kind.
  for (SubjectKind kind : all_kinds()) {
    for (std::string payload : {"", "x", "a:b:c", " spaced out ", "cmd:nested", "5,6"}) {
      const SubjectSpec spec{kind, payload};
      BOOST_TEST_CONTEXT(format_spec(spec)) { BOOST_TEST((parse_subject_spec(format_spec(spec)) == spec)); }
    }
  }
}

BOOST_AUTO_TEST_CASE(specs_order_by_kind_then_payload_so_they_can_key_a_map) {
  std::map<SubjectSpec, int> seen;
  seen[mutant_spec("b")] = 1;
  seen[builtin_spec("z")] = 2;
  seen[mutant_spec("a")] = 3;
  seen[builtin_spec("z")] = 4;
  BOOST_TEST(seen.size() == 3u);
  BOOST_TEST(seen.begin()->second == 4);  // builtin before mutant: the kinds' order
  BOOST_TEST(std::next(seen.begin())->first.payload == "a");
  BOOST_TEST(!(builtin_spec("x") == mutant_spec("x")));
}

BOOST_AUTO_TEST_CASE(help_texts_and_messages_spell_the_syntax_from_the_kind_table) {
  using K = SubjectKind;
  BOOST_TEST(subject_spec_syntax({K::builtin, K::mutant, K::cmd, K::plugin}) ==
             "builtin:NAME, mutant:NAME, cmd:COMMAND or plugin:PATH");
  BOOST_TEST(subject_spec_syntax({K::builtin, K::mutant, K::plugin_inproc}) ==
             "builtin:NAME, mutant:NAME or plugin-inproc:PATH");
  BOOST_TEST(subject_spec_syntax({K::fd}) == "fd:READ,WRITE");
  BOOST_TEST(subject_spec_syntax({}) == "");
  BOOST_TEST(kind_prefix(K::plugin_inproc) == "plugin-inproc:");
  // Each kind's syntax is a spec of that kind, whose payload is its placeholder.
  for (SubjectKind kind : all_kinds()) {
    BOOST_TEST_CONTEXT(kind_name(kind)) {
      const SubjectSpec parsed = parse_subject_spec(subject_spec_syntax({kind}));
      BOOST_TEST((parsed.kind == kind));
      BOOST_TEST(!parsed.payload.empty());
      BOOST_TEST(kind_prefix(kind) + parsed.payload == subject_spec_syntax({kind}));
    }
  }
}

BOOST_AUTO_TEST_CASE(a_cpp_spec_names_an_object_the_factory_cannot_start) {
  for (const SubjectSpec& spec : {cpp_spec("my-encoder"), parse_subject_spec("cpp:my-encoder")}) {
    try {
      make_subject(spec);
      BOOST_ERROR("made a subject of " << format_spec(spec));
    } catch (const BadSubjectSpec& e) {
      const std::string what = e.what();
      BOOST_TEST(what.starts_with("'cpp:my-encoder' is a C++ object"), what);
      BOOST_TEST(what.find("write builtin:NAME") != std::string::npos, what);
    }
  }
  BOOST_TEST(user_subject_problem("cpp:my-encoder").starts_with("'cpp:my-encoder' is a C++ object"));
  BOOST_TEST(!starts_independently(cpp_spec("my-encoder")));
  BOOST_TEST(starts_independently(builtin_spec("sinusoidal")));
}

BOOST_AUTO_TEST_SUITE_END()  // test_subject_spec
