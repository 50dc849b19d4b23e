// pecheck: property-based verification of positional encodings and attention.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fnmatch.h>

#include <algorithm>
#include <iostream>
#include <limits>
#include <optional>

#include "cli/commands.h"
#include "cli/help_format.h"
#include "cli/options_validation.h"
#include "pecheck/config/config_file.h"
#include "pecheck/core/escape.h"
#include "pecheck/core/suggest.h"
#include "cli/check_declarations_command.h"
#include "cli/explain_config_command.h"
#include "cli/identify_command.h"
#include "pecheck/core/shell_quote.h"
#include "pecheck/core/subject_spec.h"
#ifdef PECHECK_WITH_PLANTED
#include "pecheck/planted/mutants.h"
#endif
#include "pecheck/property/registry.h"

namespace {

// What --subject takes, as its help says it.
std::string user_subject_syntax() {
  using pecheck::SubjectKind;
  return pecheck::subject_spec_syntax({SubjectKind::builtin, SubjectKind::mutant, SubjectKind::cmd, SubjectKind::plugin});
}

// After a parse error: the command or option the user probably meant.
std::string did_you_mean(CLI::App& app, const std::vector<std::string>& args) {
  std::vector<std::string> commands{"help"};
  for (const CLI::App* sub : app.get_subcommands({})) commands.push_back(sub->get_name());
  if (args.size() < 2) return "";
  const std::string& first = args[1];
  if (!first.starts_with("-") && std::find(commands.begin(), commands.end(), first) == commands.end()) {
    const std::string c = pecheck::closest(first, commands);
    return c.empty() ? "" : "'" + first + "' is not a pecheck command; did you mean '" + c + "'?";
  }
  CLI::App* sub = nullptr;
  try {
    sub = app.get_subcommand(first);
  } catch (const CLI::OptionNotFound&) {
    return "";
  }
  std::vector<std::string> options;
  for (const CLI::Option* o : sub->get_options()) {
    for (const auto& l : o->get_lnames()) options.push_back("--" + l);
  }
  for (size_t i = 2; i < args.size(); ++i) {
    if (!args[i].starts_with("--")) continue;
    const std::string typed = args[i].substr(0, args[i].find('='));
    if (std::find(options.begin(), options.end(), typed) != options.end()) continue;
    const std::string c = pecheck::closest(typed, options);
    if (!c.empty()) return "'" + typed + "' is not an option of '" + first + "'; did you mean '" + c + "'?";
  }
  return "";
}

// Whether the glob selects any of the ids.
bool matches_any_of(const std::string& glob, const std::vector<std::string>& ids) {
  return std::any_of(ids.begin(), ids.end(), [&](const std::string& id) { return fnmatch(glob.c_str(), id.c_str(), 0) == 0; });
}

// The command line: CLI11's app, its commands, and what their options fill.
// Built in place (the options hold references into it).
struct Cli {
  CLI::App app{"pecheck — property-based verification of positional encodings and attention"};
  CLI::App* list_cmd = nullptr;
  bool list_json = false;
  CLI::App* run_cmd = nullptr;
  pecheck::cli::RunCommand run;
  CLI::Option* reproduce_option = nullptr;
  CLI::Option* precision_option = nullptr;
  double precision_target = 0;
  CLI::App* merge_cmd = nullptr;
  pecheck::cli::MergeOptions merge;
  CLI::App* replay_cmd = nullptr;
  pecheck::cli::ReplayOptions replay;
  CLI::App* serve_cmd = nullptr;
  std::string serve_spec;
  std::string serve_declarations;
  CLI::App* identify_cmd = nullptr;
  pecheck::cli::IdentifyOptions identify;
  CLI::App* explain_cmd = nullptr;
  std::string explain_path;
  bool explain_json = false;
  CLI::App* check_cmd = nullptr;
};

using namespace pecheck;

// `run`: what is checked, and how large.
void add_run_selection(Cli& c) {
  CLI::App* run_cmd = c.run_cmd;
  // Every value is checked on its text before CLI11 converts it (cli/options_validation.h).
  run_cmd->add_option("--subject", c.run.run.subjects,
                      user_subject_syntax() + " (repeatable, each once; default: the config's, else every built-in)")
      ->check(cli::user_subject());
  run_cmd->add_option("--properties", c.run.run.properties, "glob over property ids, e.g. 'pe.*' (repeatable)")
      ->type_name("GLOB")
      ->check(cli::non_empty());
  run_cmd->add_option("--cases", c.run.run.cases, "successful cases per property")->check(cli::strict_count(1, 10000000));
  run_cmd->add_option("--seed", c.run.seed, "seed (a number, or 'random'); the same seed gives the same results")
      ->type_name("SEED")
      ->check(cli::seed_value());
  run_cmd->add_option("--max-size", c.run.run.max_size, "RapidCheck's size bound")->check(cli::strict_count(0, 100000));
  run_cmd->add_option("--max-position", c.run.run.max_position, "largest position generated (the context length verified)")
      ->check(cli::strict_count(1, std::int64_t{1} << 40));
  run_cmd->add_option("--max-width", c.run.run.max_width,
                      "largest width (d) generated, and the widths the gate checks (default: each property's own range)")
      ->check(cli::strict_count(1, 1 << 16));
  run_cmd->add_option("--history", c.run.run.history,
                      "also a history script of N requests to one copy (history_independence's gate; default: the "
                      "ladder's 16, 64, 256 and a declared session)")
      ->type_name("N")
      ->check(cli::strict_count(1, 4096));
  run_cmd->add_option("--tolerance-factor", c.run.run.error_model.factor, "safety multiple of the error model")
      ->type_name("X")
      ->check(cli::finite_positive(std::numeric_limits<double>::max()));
  run_cmd->add_flag("!--no-shrink", c.run.run.shrink, "report the first counterexample unshrunk");
  run_cmd->add_option("--model-config", c.run.run.model_config,
                      "a model's config.json: every subject is judged layer by layer as it says (params.model; "
                      "`pecheck explain-config PATH` shows the reading)")
      ->type_name("PATH")
      ->check(cli::non_empty());
}

// `run`: where reports go, and what they hold.
void add_run_reporting(Cli& c) {
  CLI::App* run_cmd = c.run_cmd;
  run_cmd->add_option("--report-dir", c.run.report_dir,
                      "where reports are written; the directory is pecheck's, replaced whole by each run")
      ->type_name("DIR")
      ->check(cli::non_empty());
  c.reproduce_option =
      run_cmd->add_option("--reproduce", c.run.run.reproduce, "RapidCheck reproduce string from a report")
      ->type_name("STRING")
          ->check(cli::non_empty());
  run_cmd->add_option("--subject-timeout", c.run.run.subject_timeout, "seconds a process subject has per request")
      ->type_name("SECONDS")
      ->check(cli::finite_positive(kMaxSubjectTimeoutSeconds));
  run_cmd->add_flag("--quiet,-q", c.run.quiet, "print only failures and the matrix");
  run_cmd->add_option("--config", c.run.config, "pecheck.toml with the run's settings; flags given here override it")
      ->type_name("FILE")
      ->check(cli::non_empty());
  run_cmd->add_option("--profile", c.run.run.profile,
                      "what the subjects must satisfy: sinusoidal, rotary, attention, absolute, bias or module "
                      "(default: a plugin or process subject's declared ops; a built-in's own expectations)")
      ->type_name("NAME")
      ->check(cli::non_empty());

  run_cmd->add_flag("!--no-regressions", c.run.run.regressions,
                    "neither replay nor save stored failures (hermetic CI; also PECHECK_NO_REGRESSIONS=1)");
  run_cmd->add_option("--regression-dir", c.run.run.regression_dir,
                      "where failures are saved and replayed first on the next run")
      ->type_name("DIR")
      ->check(cli::non_empty());
  run_cmd->add_option("--github-annotations", c.run.github_annotations,
                      "print GitHub ::error lines for the first N failures")
      ->check(cli::strict_count(0, 1000000));
  run_cmd->add_flag("--budget", c.run.run.budget,
                    "search each encoder and rotary subject's precision budget: the largest position up to which "
                    "each structural property holds within a fixed tolerance");
  c.precision_option =
      run_cmd->add_option("--precision-target", c.precision_target,
                          "the precision budgets' fixed tolerance (default 8 · u(float16) = 3.9e-3)")
      ->type_name("X")
          ->check(cli::finite_positive(std::numeric_limits<double>::max()));

}

// `run`: how the cells are executed (jobs, batches, copies, shards, time).
void add_run_execution(Cli& c) {
  CLI::App* run_cmd = c.run_cmd;
  run_cmd->add_option("--jobs,-j", c.run.run.jobs,
                      "cells run at once, each job with its own subject instance or process (default: the number of "
                      "cores; the results do not depend on it)")
      ->check(cli::strict_count(1, 1024));
  run_cmd->add_option("--batch", c.run.run.batch,
                      "cases sent ahead in one request to a subject that declares \"batch\": true (grown from 4 "
                      "while batches answer well inside --subject-timeout; 1: one request per case; the results do "
                      "not depend on it)")
      ->check(cli::strict_count(1, 65536));
  run_cmd->add_flag("!--no-fork", c.run.run.fork,
                    "start every instance and fresh copy of a subject afresh, although its hello declares fork "
                    "(by default such a subject is started once and each job's instance and each fresh copy "
                    "history_independence compares with is a copy it forks; the results do not depend on it)");
  run_cmd->add_option("--shard", c.run.shard,
                      "run only shard I of N (0-based, as GTEST_SHARD_INDEX); default: GTEST_SHARD_INDEX/"
                      "GTEST_TOTAL_SHARDS, else CI_NODE_INDEX/CI_NODE_TOTAL (1-based); 'pecheck merge' joins the shards")
      ->type_name("I/N");

  run_cmd->add_option("--time-budget", c.run.run.time_budget,
                      "seconds the whole run may take: when they are spent the running cells stop, no other starts, "
                      "and the run fails (exit 1) saying so; the results it had are kept")
      ->type_name("SECONDS")
      ->check(cli::finite_positive(kMaxSubjectTimeoutSeconds));
  run_cmd->add_option("--progress-fd", c.run.progress_fd,
                      "write the run's progress as events, one JSON object per line, to this inherited file "
                      "descriptor (for front ends such as the Python package)")
      ->type_name("FD")
      ->check(cli::strict_count(3, 1 << 20));
  run_cmd->add_option("--rerun-command", c.run.rerun_command,
                      "the command that reruns this run, shown in the reports' Rerun lines instead of pecheck's "
                      "own ({seed} is replaced by the seed): a test runner's, e.g. 'pytest test_x.py::test_y'")
      ->type_name("COMMAND")
      ->check(cli::non_empty());
  run_cmd->add_flag("--list-cells", c.run.list_cells,
                    "print the cells the run would check, one 'PROPERTY<TAB>SUBJECT' line each, and stop "
                    "(pecheck_add_tests in CMake registers one ctest test per line)");

}

void add_merge_and_replay(Cli& c) {
  c.merge_cmd = c.app.add_subcommand(
      "merge", "write one report set from the report directories of a sharded run (each shard's report.json)");
  c.merge_cmd->add_option("dirs", c.merge.dirs, "the shards' report directories")
      ->type_name("DIR")->required();
  c.merge_cmd->add_option("--report-dir", c.merge.report_dir, "where the merged reports are written")
      ->type_name("DIR");
  c.merge_cmd->add_flag("--quiet,-q", c.merge.quiet, "print only failures and the matrix");

  c.replay_cmd = c.app.add_subcommand(
      "replay", "measure a recorded counterexample again, against its subject or --subject (e.g. the fixed one)");
  c.replay_cmd->add_option("file", c.replay.file, "a counterexample file or regression-store entry")
      ->type_name("FILE")->required();
  c.replay_cmd->add_option("--subject", c.replay.subject, "replay against this subject instead of the recorded one")
      ->check(cli::user_subject());
  c.replay_cmd->add_option("--config", c.replay.config,
                         fmt::format("a pecheck.toml whose subjects are trusted: a recorded {} or {} subject it names runs",
                                     kind_prefix(SubjectKind::cmd), kind_prefix(SubjectKind::plugin)))
      ->type_name("FILE")
      ->check(cli::non_empty());
  c.replay_cmd->add_flag("--trust-recorded-subject", c.replay.trust_recorded_subject,
                       fmt::format("run the recorded {} or {} subject although no --subject or --config names it "
                                   "(it runs whatever the file says: only for files you made)",
                                   kind_prefix(SubjectKind::cmd), kind_prefix(SubjectKind::plugin)));
  c.replay_cmd->add_flag("--json", c.replay.json, "print the result as JSON");
  c.replay_cmd->add_option("--subject-timeout", c.replay.subject_timeout, "seconds a process subject has per request")
      ->type_name("SECONDS")
      ->check(cli::finite_positive(kMaxSubjectTimeoutSeconds));

}

void add_other_commands(Cli& c) {
  c.serve_cmd = c.app.add_subcommand(
      "serve", "answer the subject protocol (JSON Lines on stdin/stdout) with the subject SPEC");
  c.serve_cmd->add_option("spec", c.serve_spec,
                        subject_spec_syntax({SubjectKind::builtin, SubjectKind::mutant, SubjectKind::plugin_inproc}))
      ->type_name("SPEC")->required();
  c.serve_cmd->add_option("--declarations", c.serve_declarations,
                          "a [subject.\"SPEC\"] table as JSON, laid over what the subject declares (how `run` "
                          "passes pecheck.toml's declarations to a plugin it serves in a child)")
      ->type_name("JSON");

  c.identify_cmd = c.app.add_subcommand(
      "identify", "probe an encoder or a rotary and print the convention that best explains it, and its v2 hello");
  c.identify_cmd->add_option("--subject", c.identify.subject, user_subject_syntax())
      ->type_name("SPEC")
      ->required();
  c.identify_cmd->add_option("--max-position", c.identify.max_position, "largest position probed")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  c.identify_cmd->add_option("--tolerance-factor", c.identify.tolerance_factor, "safety multiple of the error model")
      ->type_name("X")
      ->check(CLI::PositiveNumber);
  c.identify_cmd->add_option("--subject-timeout", c.identify.subject_timeout, "seconds a process subject has per request")
      ->type_name("SECONDS")
      ->check(CLI::PositiveNumber);
  c.identify_cmd->add_flag("--json", c.identify.json, "print the result as JSON");

  c.explain_cmd = c.app.add_subcommand(
      "explain-config", "read a model's config.json as pecheck does: the model-wide facts and one row per layer");
  c.explain_cmd->add_option("path", c.explain_path, "the config.json (a multimodal one: its text_config is read)")
      ->type_name("PATH")
      ->required();
  c.explain_cmd->add_flag("--json", c.explain_json, "print the reading as JSON (docs/model-configs.md)");

  c.check_cmd = c.app.add_subcommand(
      "check-declarations", "judge hellos' declarations (one JSON object a line on stdin) as a run would: one verdict "
                            "a line on stdout (the Python package asks it before it serves)");

}

void build(Cli& c) {
  c.app.name("pecheck");
  c.app.require_subcommand(1);
  c.app.set_version_flag("--version", std::string("pecheck ") + PECHECK_VERSION);
  // Set before the subcommands are added: they inherit both.
  c.app.formatter(std::make_shared<cli::HelpFormatter>());
  c.app.option_defaults()->always_capture_default();
  c.list_cmd = c.app.add_subcommand("list", "list the properties, their claims and the built-in subjects");
  c.list_cmd->add_flag("--json", c.list_json, "machine-readable output");
  c.run_cmd = c.app.add_subcommand("run", "check properties against subjects and write reports");
  add_run_selection(c);
  add_run_reporting(c);
  add_run_execution(c);
  add_merge_and_replay(c);
  add_other_commands(c);
}

// `pecheck help [COMMAND]` is `pecheck [COMMAND] --help` (args rewritten);
// an exit code where it names no command.
std::optional<int> help_as_flag(CLI::App& app, std::vector<std::string>& args) {
  if (args.size() < 2 || args[1] != "help") return std::nullopt;
  const auto commands = app.get_subcommands({});
  const bool known = std::any_of(commands.begin(), commands.end(),
                                 [&](const CLI::App* sub) { return args.size() < 3 || sub->get_name() == args[2]; });
  if (!known) {
    // `pecheck help nosuch` is a mistake, not a request for the general help.
    const std::vector<std::string> asked{args[0], args[2]};
    const std::string hint = did_you_mean(app, asked);
    std::cerr << "pecheck: help: there is no command '" << escape_terminal(args[2])
              << "' (run, merge, replay, identify, explain-config, list, serve)" << (hint.empty() ? "" : "\n" + escape_terminal(hint))
              << "\n";
    return cli::kExitUsage;
  }
  args.erase(args.begin() + 1);
  args.push_back("--help");
  return std::nullopt;
}

// CLI11's parse; an exit code where it stops the command (an error, --help, --version).
std::optional<int> parse(CLI::App& app, const std::vector<std::string>& args) {
  try {
    // CLI11 takes them last first, without the program name.
    std::vector<std::string> reversed(args.rbegin(), args.rend() - (args.empty() ? 0 : 1));
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    // A misspelt command or option: our suggestion alone, not CLI11's list of
    // the arguments it did not expect before it.
    if (e.get_exit_code() != 0) {
      if (const std::string hint = did_you_mean(app, args); !hint.empty()) {
        std::cerr << "pecheck: " << escape_terminal(hint) << "\nRun with --help for more information.\n";
        return cli::kExitUsage;
      }
    }
    const int code = app.exit(e);
    return code == 0 ? 0 : cli::kExitUsage;
  }
  return std::nullopt;
}

// What the validators cannot see alone: the list of subjects as a whole,
// each properties glob against the registry, and a reproduce string against
// the registry and --max-size. An exit code where the run cannot start.
std::optional<int> run_problem(const Cli& c) {
  if (const std::string twice = repeated_subject(c.run.run.subjects); !twice.empty()) {
    std::cerr << "pecheck: --subject " << escape_terminal(twice)
              << " is given twice; name each subject once (a repeated subject would only repeat its results)\n";
    return cli::kExitUsage;
  }
  std::vector<std::string> ids;
  for (const auto& p : all_properties()) ids.push_back(p.info.id);
  // Each glob must select something: a typo among several globs would otherwise drop its properties silently.
  for (const auto& glob : c.run.run.properties) {
    if (matches_any_of(glob, ids)) continue;
    if (const std::string pending = pecheck::pending_claims_matching(glob); !pending.empty()) {
      std::cerr << "pecheck: --properties '" << escape_terminal(glob) << "' names only claims of the catalog that "
                << "pecheck does not implement yet: " << pending << " (see 'pecheck list')\n";
      return cli::kExitUsage;
    }
    const std::string near = pecheck::closest(glob, ids);
    std::cerr << "pecheck: --properties '" << escape_terminal(glob) << "' matches no property"
              << (near.empty() ? "" : "; did you mean '" + near + "'?") << " (see 'pecheck list')\n";
    return cli::kExitUsage;
  }
  if (c.reproduce_option->count() > 0) {
    if (const std::string why = cli::reproduce_problem(c.run.run.reproduce, ids, c.run.run.max_size); !why.empty()) {
      std::cerr << "pecheck: --reproduce: " << why << "\n";
      return cli::kExitUsage;
    }
  }
  return std::nullopt;
}

int run_command(Cli& c, int argc, char** argv) {
  if (std::optional<int> problem = run_problem(c)) return *problem;
  if (c.precision_option->count() > 0) c.run.run.precision_target = c.precision_target;
  for (const CLI::Option* option : c.run_cmd->get_options()) {
    if (option->count() > 0) c.run.given.insert(option->get_name());
  }
  c.run.run.executable = cli::self_executable(argv[0]);
  const std::string program = argc > 0 ? argv[0] : "pecheck";
  return cli::run(c.run, program, cli::recorded_command_line(argc, argv));
}

int dispatch(Cli& c, int argc, char** argv) {
  if (*c.list_cmd) return cli::list(c.list_json);
  if (*c.serve_cmd) return cli::serve(c.serve_spec, c.serve_declarations);
  if (*c.explain_cmd) return cli::explain_config(c.explain_path, c.explain_json);
  if (*c.check_cmd) return cli::check_declarations_command();
  if (*c.identify_cmd) {
    c.identify.executable = cli::self_executable(argv[0]);
    return cli::identify(c.identify);
  }
  if (*c.merge_cmd) return cli::merge(c.merge, argc > 0 ? argv[0] : "pecheck");
  if (*c.replay_cmd) {
    c.replay.executable = cli::self_executable(argv[0]);
    return cli::replay(c.replay);
  }
  return run_command(c, argc, argv);
}

}  // namespace

int main(int argc, char** argv) {
#ifdef PECHECK_WITH_PLANTED
  pecheck::install_planted_subjects();
#endif
  Cli c;
  build(c);
  std::vector<std::string> args(argv, argv + argc);
  if (std::optional<int> code = help_as_flag(c.app, args)) return *code;
  if (std::optional<int> code = parse(c.app, args)) return *code;
  try {
    return dispatch(c, argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "pecheck: internal error: " << e.what() << "\n";
    return pecheck::cli::kExitFailed;
  }
}
