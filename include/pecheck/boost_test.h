#pragma once
// Boost.Test integration: register an in-process C++ subject and get one
// Boost.Test case per property that applies to it, each failing with the
// shrunk counterexample. In your test file (linked with pecheck::boost_test):
//
//   #define BOOST_TEST_MODULE my_encoder
//   #include <boost/test/unit_test.hpp>
//   #include <pecheck/boost_test.h>
//
//   PECHECK_BOOST_TEST_SUBJECT(my_encoder, std::make_unique<MyEncoder>())
//
// gives the suite my_encoder with cases pe.bounded, pe.constant_norm, …
// Settings come from pecheck::RunOptions (alias cpp::CheckOptions), overridden by the
// environment (PECHECK_SEED, PECHECK_CASES, ...; see check.h); use
// PECHECK_BOOST_TEST_SUBJECT_WITH(suite, options, make) to set them in code.
#include <boost/test/unit_test.hpp>

#include <functional>
#include <memory>
#include <string>

#include "pecheck/cpp/check.h"
#include "pecheck/cpp/implementation.h"

namespace pecheck::cpp {

class BoostTestRegistrar {
 public:
  BoostTestRegistrar(const char* suite, const char* file, std::size_t line, std::function<SubjectPtr()> make,
                     const RunOptions& defaults = {}) {
    namespace utf = boost::unit_test;
    auto& decorators = utf::decorator::collector_t::instance();
    utf::ut_detail::auto_test_unit_registrar open(suite, file, line, decorators);
    auto state = std::make_shared<State>();
    try {
      state->options = options_from_environment(defaults);
      state->planned = plan(make(), state->options);
    } catch (const std::exception& e) {
      // A subject that cannot be set up is one failing case, not a crash at start-up.
      const std::string why = std::string("cannot set up the subject: ").append(e.what());
      add([why] { BOOST_FAIL(why); }, "setup", file, line);
    }
    if (state->planned.subject && state->planned.properties.empty()) {
      add([] { BOOST_FAIL("no property applies to this subject (check its ops and the profile)"); }, "setup", file,
          line);
    }
    if (state->planned.subject) {
      for (const PropertyDef* property : state->planned.properties) {
        const std::string test = std::string(suite).append("/").append(property->info.id);
        add([state, property, test] { run(*state, *property, test); }, property->info.id, file, line);
      }
    }
    utf::ut_detail::auto_test_unit_registrar close(1);
  }

 private:
  struct State {
    RunOptions options;
    PlannedSubject planned;
  };

  static void add(std::function<void()> body, const std::string& name, const char* file, std::size_t line) {
    namespace utf = boost::unit_test;
    utf::ut_detail::auto_test_unit_registrar(utf::make_test_case(body, name, file, line),
                                             utf::decorator::collector_t::instance());
  }

  static void run(State& state, const PropertyDef& property, const std::string& test) {
    const PropertyResult r = check_property(state.planned, property, state.options);
    const auto& args = boost::unit_test::framework::master_test_suite();
    std::string rerun = args.argc > 0 ? std::string(args.argv[0]) : std::string("<test>");
    rerun.append(" --run_test=").append(test);
    const std::string text = std::string("\n").append(failure_text(r, property.info, state.options, rerun));
    BOOST_CHECK_MESSAGE(r.status() == Status::passed, text);
  }
};

}  // namespace pecheck::cpp

#define PECHECK_BOOST_TEST_SUBJECT_WITH(suite_name, options, ...)                        \
  static ::pecheck::cpp::BoostTestRegistrar BOOST_JOIN(pecheck_registrar_, suite_name)( \
      #suite_name, __FILE__, __LINE__, [] { return ::pecheck::SubjectPtr(__VA_ARGS__); }, options);

#define PECHECK_BOOST_TEST_SUBJECT(suite_name, ...) \
  PECHECK_BOOST_TEST_SUBJECT_WITH(suite_name, ::pecheck::RunOptions{}, __VA_ARGS__)
