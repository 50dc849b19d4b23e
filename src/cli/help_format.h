#pragma once
// `pecheck help COMMAND` and --help as a person reads them: each option with
// a short metavariable (N, SPEC, TEXT), its rule and its default in words
// after the description, and flags without CLI11's "{false}" marks or
// "INT:INT in [1, 100]" type strings.
#include <CLI/CLI.hpp>

namespace pecheck::cli {

class HelpFormatter final : public CLI::Formatter {
 public:
  std::string make_option_name(const CLI::Option* option, bool positional) const override;
  std::string make_option_opts(const CLI::Option* option) const override;
  std::string make_option_desc(const CLI::Option* option) const override;
};

}  // namespace pecheck::cli
