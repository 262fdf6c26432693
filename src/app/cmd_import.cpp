#include <algorithm>
#include <cstdio>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "common_flags.hpp"
#include "perfit/core/error.hpp"
#include "perfit/io/output_guard.hpp"
#include "perfit/io/store_import.hpp"

namespace perfit::app {

namespace {

struct ImportArgs : io::ImportOptions {
  bool json = false;
};

// --json: what was imported, as one object.
void print_json(const ImportArgs& o, const io::ImportSummary& s) {
  nlohmann::ordered_json j{{"input", o.csv},
                           {"out", o.store},
                           {"sets", s.sets.empty() ? std::vector<std::string>{o.set} : s.sets},
                           {"rows_imported", s.rows_read - s.rows_dropped},
                           {"rows_dropped", s.rows_dropped},
                           {"rows_in_set", s.rows_in_set},
                           {"created_store", s.created_store},
                           {"appended", s.appended},
                           {"replaced", s.replaced},
                           {"notes", s.notes}};
  if (!s.rows_in_sets.empty())
    j["rows_in_sets"] = s.rows_in_sets;  // --set-by: per set, in "sets" order
  std::cout << j.dump() << "\n";
}

int run_import_extrap(const ImportArgs& o) {
  if (!o.target.empty() || !o.throughput.empty() || !o.categorical.empty() || !o.set_by.empty()) {
    throw ConfigError(
        "--format extrap: --target, --throughput, --categorical and --set-by do not apply (the "
        "sets' "
        "target is 'value', one column per PARAMETER, one set per call path and metric)");
  }
  const io::ImportSummary s = io::import_extrap(o);
  if (o.json) {
    print_json(o, s);
    return 0;
  }
  std::printf("imported %zu rows from Extra-P file '%s' into '%s' as %zu set(s):", s.rows_in_set,
              o.csv.c_str(), o.store.c_str(), s.sets.size());
  constexpr std::size_t kNamed = 5;  // 10^5 call paths would make one unreadable line
  for (std::size_t i = 0; i < std::min(kNamed, s.sets.size()); ++i)
    std::printf(" %s", s.sets[i].c_str());
  if (s.sets.size() > kNamed)
    std::printf(" ... and %zu more (`perfit inspect` lists them)", s.sets.size() - kNamed);
  std::printf("\n");
  if (s.rows_dropped > 0)
    std::printf("dropped %zu values that are not > 0 (--drop-invalid)\n", s.rows_dropped);
  return 0;
}

// ',' ';' or a tab, which a shell makes hard to type: "tab" or "\t" stand for it.
Option<ImportArgs> delimiter_option() {
  using S = ImportArgs;
  return {"delimiter",
          "delimiter",
          "field separator",
          "one of ',' ';' tab",
          OptionKind::text,
          [](S& o, const std::string& t) {
            if (t == "," || t == ";") {
              o.delimiter = t[0];
            } else if (t == "tab" || t == "\t" || t == "\\t") {
              o.delimiter = '\t';
            } else {
              throw ConfigError("found '" + t + "', expected one of ',' ';' tab");
            }
          },
          [](const S& o) {
            return o.delimiter == '\t' ? std::string("tab") : std::string(1, o.delimiter);
          }};
}

const OptionTable<ImportArgs>& import_options() {
  using S = ImportArgs;
  static const OptionTable<S> t = {
      required(
          positional(text_option<S>("csv", &S::csv, "a file", "CSV (or Extra-P) file to import"))),
      choice_option<S>(
          "format", &S::format, {"csv", "extrap"},
          "csv, or extrap: Extra-P's input by the file's extension, .json (either of its "
          "JSON formats), .jsonl (JSON Lines), else its PARAMETER/POINTS/REGION/METRIC/DATA text"),
      required(out_option<S>(&S::store, "HDF5 store to create or add to")),
      required(
          text_option<S>("set", &S::set, "a set path",
                         "set path /<framework>/<model>[/<system>] (extrap, --set-by: /PREFIX)")),
      text_option<S>(
          "set_by", &S::set_by, "a column name",
          "one set per value of this column, named --set/<value> (values as written); for a joint "
          "fit of them see docs/joint.md"),
      text_option<S>(
          "target", &S::target, "a column name",
          "column holding the measured time (with --throughput: the time column to create); "
          "required for CSV, extrap sets use 'value'"),
      text_option<S>(
          "throughput", &S::throughput, "a column name",
          "column holding throughput (samples/s) instead of time: the set gets --target = "
          "--work / throughput"),
      real_option<S>("work", &S::work, 0.0, std::numeric_limits<double>::infinity(),
                     "samples one measurement processes (with --throughput), e.g. 1281167 for an "
                     "ImageNet epoch"),
      text_option<S>("unit", &S::unit, "a unit", "unit of the target column"),
      text_option<S>("source", &S::source, "text", "provenance note (default: the CSV file name)"),
      list_option<S>("categorical", &S::categorical, "column names",
                     "columns to keep as text (comma-separated)", true),
      delimiter_option(),
      bool_option<S>("append", &S::append, "add the rows to an existing set"),
      // --force as every command says it: replace the output, here the set at --set.
      with_flag(force_option<S>(&S::replace,
                                "replace an existing set at --set (the store's other sets stay)"),
                "force"),
      bool_option<S>("drop_invalid", &S::drop_invalid,
                     "drop rows whose target is NaN, inf, zero or negative (and count them)"),
      json_option<S>(&S::json, "what was imported as one JSON object instead of the lines"),
  };
  return t;
}

int run_import(ImportArgs& o) {
  io::check_output({o.store, "--out", io::FileKind::store, {o.csv}, false, true});
  if (o.format == "extrap") return run_import_extrap(o);
  const io::ImportSummary s = io::import_csv(o);
  for (const auto& n : s.notes) std::fprintf(stderr, "perfit import: note: %s\n", n.c_str());
  if (o.json) {
    print_json(o, s);
    return 0;
  }
  if (!o.set_by.empty()) {
    std::printf("imported %zu rows from '%s' into '%s' as %zu sets by %s%s:",
                s.rows_read - s.rows_dropped, o.csv.c_str(), o.store.c_str(), s.sets.size(),
                o.set_by.c_str(), s.created_store ? " (new store)" : "");
    // A few sets by name (a --set-by over 10^5 call paths is one line, not a megabyte).
    constexpr std::size_t kNamed = 5;
    for (std::size_t i = 0; i < std::min(s.sets.size(), kNamed); ++i)
      std::printf(" %s (%zu rows)", s.sets[i].c_str(), s.rows_in_sets[i]);
    if (s.sets.size() > kNamed)
      std::printf(" and %zu more (--json lists every one)", s.sets.size() - kNamed);
    std::printf("\n");
  } else {
    std::printf("imported %zu rows from '%s' into '%s' set '%s'%s%s; the set has %zu rows\n",
                s.rows_read - s.rows_dropped, o.csv.c_str(), o.store.c_str(), o.set.c_str(),
                s.created_store ? " (new store)" : "",
                s.appended ? " (appended)" : (s.replaced ? " (replaced)" : ""), s.rows_in_set);
  }
  if (s.rows_dropped > 0) {
    std::printf("dropped %zu of %zu rows with an invalid target '%s' (--drop-invalid)\n",
                s.rows_dropped, s.rows_read, o.target.c_str());
  }
  return 0;
}

}  // namespace

void add_import_command(CLI::App& app, Action& action) {
  auto a = std::make_shared<ImportArgs>();
  CLI::App* cmd = add_command(
      app, action, "import",
      "Import a CSV file (header row = column names) as a measurement set of an HDF5 store, or as\n"
      "one set per value of a column with --set-by COLUMN. Column types are inferred from each\n"
      "column's first value. With --format extrap, an Extra-P file (text, .json or .jsonl): one "
      "set\n"
      "per callpath x metric under --set /PREFIX. The store is rewritten through a temporary "
      "file,\n"
      "so on any error it stays exactly as it was.",
      a, import_options(), run_import);
  // --replace, this command's word for --force until issue 42: scripts keep working, told once.
  cmd->add_flag_callback(
         "--replace",
         [a] {
           a->replace = true;
           std::fprintf(
               stderr,
               "perfit import: note: --replace is now --force (as in every command); --replace "
               "will be removed\n");
         })
      ->group("");
}

}  // namespace perfit::app
